// The VS Code client of agent-lsp: starts the server, adds the "Agent:"
// palette entries and a status bar item. The refactor preview comes from the
// server's needsConfirmation annotations; all agent logic stays in the server.
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { askArgs, AskResult, initializationOptions, serverCommand, summary, withAgentCapabilities } from './args';

let client: LanguageClient | undefined;
let status: vscode.StatusBarItem;
let running = 0;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const config = () => vscode.workspace.getConfiguration('agent-lsp');
  const serverOptions: ServerOptions = { command: findServer(context.extensionPath, config().get<string>('path')), args: ['serve'] };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
    initializationOptions: initializationOptions(config()),
    synchronize: { configurationSection: 'agent-lsp' },
    middleware: {
      // "Ask agent…" code actions come without a prompt: ask for one here.
      executeCommand: async (command, args, next) => {
        if (command === 'agent.ask' && args[0] && !args[0].prompt) {
          const prompt = await vscode.window.showInputBox({ prompt: 'Ask the agent' });
          if (!prompt) return undefined;
          args = [{ ...args[0], prompt }];
        }
        return next(command, args);
      },
    },
  };
  client = new LanguageClient('agent-lsp', 'agent-lsp', serverOptions, clientOptions);
  // The middleware above asks for the prompt: say so, or the server sends
  // "Ask agent…" as a comment template for clients without an input box.
  // Inline completion (LSP 3.18) is a proposed feature in this client.
  client.registerProposedFeatures();
  client.registerFeature({
    fillClientCapabilities: withAgentCapabilities,
    initialize: () => undefined,
    getState: () => ({ kind: 'static' }),
    clear: () => undefined,
  });

  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  status.command = 'agent-lsp.cancel';
  context.subscriptions.push(status);

  const ask = async (prompt: string | undefined) => {
    if (!prompt) return;
    const editor = vscode.window.activeTextEditor;
    const sel = editor?.selection;
    const range = sel && { start: { line: sel.start.line, character: sel.start.character }, end: { line: sel.end.line, character: sel.end.character } };
    await run('agent.ask', askArgs(prompt, editor?.document.uri.toString(), range));
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('agent-lsp.ask', async () => ask(await vscode.window.showInputBox({ prompt: 'Ask the agent' }))),
    vscode.commands.registerCommand('agent-lsp.explain', () => ask('Explain what this code does, and point out anything surprising.')),
    vscode.commands.registerCommand('agent-lsp.apply', () => run('agent.applyProposal', {})),
    vscode.commands.registerCommand('agent-lsp.discard', () => run('agent.discardProposal', {})),
    vscode.commands.registerCommand('agent-lsp.cancel', () => run('agent.cancel', {})),
    vscode.commands.registerCommand('agent-lsp.newSession', () => run('agent.newSession', undefined)),
    vscode.commands.registerCommand('agent-lsp.keepNotes', () => run('agent.keepNotes', {})),
  );
  await client.start();
}

async function run(command: string, arg: unknown): Promise<void> {
  if (!client) return;
  running++;
  status.text = '$(sync~spin) Agent';
  status.tooltip = 'agent-lsp is working (click to cancel)';
  status.show();
  try {
    const result = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: arg === undefined ? [] : [arg] });
    if (command === 'agent.ask' && result) {
      vscode.window.showInformationMessage(summary(result as AskResult));
    }
  } catch (err) {
    vscode.window.showErrorMessage(`agent-lsp: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    running--;
    if (running === 0) status.hide();
  }
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}

/** findServer looks on disk for the candidates serverCommand chooses from. */
function findServer(extensionPath: string, setting: string | undefined): string {
  const exe = process.platform === 'win32' ? 'agent-lsp.exe' : 'agent-lsp';
  const exists = (p: string) => { try { return fs.statSync(p).isFile(); } catch { return false; } };
  const bundled = path.join(extensionPath, 'bin', exe);
  const onPath = (process.env.PATH ?? '').split(path.delimiter).some((d) => d !== '' && exists(path.join(d, exe)));
  const gobin = process.env.GOBIN || path.join((process.env.GOPATH ?? '').split(path.delimiter)[0] || path.join(os.homedir(), 'go'), 'bin');
  const goInstalled = path.join(gobin, exe);
  return serverCommand(setting, exists(bundled) ? bundled : undefined, onPath, exists(goInstalled) ? goInstalled : undefined);
}
