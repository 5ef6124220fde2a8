// The VS Code client of agent-lsp: starts the server, adds the "Agent:"
// palette entries, shows each run as a notification the user can cancel,
// and hands proposals to their review (review.ts). All agent logic stays
// in the server.
import * as vscode from 'vscode';
import {
  ApplyWorkspaceEditRequest, ExecuteCommandRequest, LanguageClient, LanguageClientOptions, MessageType, ServerOptions, ShowMessageNotification,
  WorkDoneProgressCancelNotification,
} from 'vscode-languageclient/node';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  askArgs, AskArgs, AskResult, feedback, humanError, initializationOptions, serverCommand, serverSettingKeys, summary, withAgentCapabilities,
} from './args';
import { NextEdits } from './nextEdit';
import { SessionOptions } from './sessionOptions';
import { ProposedContents, proposedScheme, Reviews } from './review';

let client: LanguageClient | undefined;
let notRunning: string | undefined; // why the server is not running, once it could not start
let status: vscode.StatusBarItem;
let running = 0;
let sessionOptions: SessionOptions | undefined; // the model and context meter, refreshed as runs end

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const config = () => vscode.workspace.getConfiguration('agent-lsp');
  const command = findServer(context.extensionPath, config().get<string>('path'));
  const serverOptions: ServerOptions = { command, args: ['serve'] };
  const proposed = new ProposedContents();
  const reviewStatus = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 9);
  const reviews = new Reviews({
    request: (command, arg) => request(command, arg),
    status: async () => client?.sendRequest(ExecuteCommandRequest.type, { command: 'agent.status', arguments: [] }),
    asWorkspaceEdit: (edit) => client!.protocol2CodeConverter.asWorkspaceEdit(edit),
  }, proposed, reviewStatus);
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
    // Read when the server is initialized, not at activation: a remote
    // window's settings may arrive in between.
    initializationOptions: () => initializationOptions(config(), serverSettingKeys(context.extension.packageJSON)),
    synchronize: { configurationSection: 'agent-lsp' },
    middleware: {
      executeCommand: async (command, args, next) => {
        // "Ask agent…" code actions come without a prompt: ask for one here.
        if (command === 'agent.ask' && args[0] && !args[0].prompt) {
          const prompt = await vscode.window.showInputBox({ prompt: 'Ask the agent' });
          if (!prompt) return undefined;
          args = [{ ...args[0], prompt }];
        }
        // The code actions "Apply/Discard agent proposal" are the user's
        // choice, made and said as the review's buttons make and say it.
        const id = typeof args[0]?.id === 'string' ? args[0].id as string : undefined;
        if (command === 'agent.applyProposal') return reviews.apply(id, 'without');
        if (command === 'agent.discardProposal') return reviews.discard(id);
        return next(command, args);
      },
      // vscode-languageclient 9 passes the suggest widget's selected item on
      // as VS Code's own, whose Range is sent as [start, end]: an LSP range
      // instead, which any server takes.
      provideInlineCompletionItems: (document, position, context, token, next) => {
        const selected = context.selectedCompletionInfo;
        if (selected && client) {
          const range = client.code2ProtocolConverter.asRange(selected.range) as unknown as vscode.Range;
          context = { ...context, selectedCompletionInfo: { text: selected.text, range } };
        }
        return next(document, position, context, token);
      },
      // A run's progress becomes a notification with Cancel; the rest stays in the status bar.
      handleWorkDoneProgress: (token, params, next) => {
        if (typeof token === 'string' && token.startsWith('agent-lsp/')) {
          runProgress(token, params);
          if (params.kind !== 'end') return; // the client's own part only cleans up at the end
        }
        next(token, params);
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
  context.subscriptions.push(status, reviewStatus, vscode.workspace.registerTextDocumentContentProvider(proposedScheme, proposed));
  reviews.register(context);

  const ask = async (prompt: string | undefined, mode?: AskArgs['mode']) => {
    if (!prompt) return;
    const editor = vscode.window.activeTextEditor;
    const sel = editor?.selection;
    const range = sel && { start: { line: sel.start.line, character: sel.start.character }, end: { line: sel.end.line, character: sel.end.character } };
    await run('agent.ask', askArgs(prompt, editor?.document.uri.toString(), range, mode));
  };
  const nextEdits = new NextEdits(client);
  sessionOptions = new SessionOptions(() => client);
  sessionOptions.register(context);
  const say = async (command: string, arg: unknown) => {
    const result = await run(command, arg);
    if (result !== undefined) vscode.window.showInformationMessage(feedback(command, result));
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('agent-lsp.ask', async () => ask(await vscode.window.showInputBox({ prompt: 'Ask the agent' }))),
    vscode.commands.registerCommand('agent-lsp.explain', () => ask('Explain what this code does, and point out anything surprising.', 'ask')), // read-only, as the server's Explain action
    // The newest pending proposal, or the one named.
    vscode.commands.registerCommand('agent-lsp.apply', (id?: unknown) => reviews.apply(typeof id === 'string' ? id : undefined, 'without')),
    vscode.commands.registerCommand('agent-lsp.applyWithSensitive', (id?: unknown) => reviews.apply(typeof id === 'string' ? id : undefined, 'pick')),
    vscode.commands.registerCommand('agent-lsp.discard', (id?: unknown) => reviews.discard(typeof id === 'string' ? id : undefined)),
    vscode.commands.registerCommand('agent-lsp.cancel', () => say('agent.cancel', {})),
    vscode.commands.registerCommand('agent-lsp.newSession', () => say('agent.newSession', undefined)),
    vscode.commands.registerCommand('agent-lsp.keepNotes', () => say('agent.keepNotes', {})),
    vscode.commands.registerCommand('agent-lsp.nextEditTab', () => nextEdits.tab()),
    vscode.commands.registerCommand('agent-lsp.acceptNextEdit', () => nextEdits.accept()),
    vscode.commands.registerCommand('agent-lsp.dismissNextEdit', () => nextEdits.dismiss()),
  );

  const missing = missingProgram(command);
  if (missing) {
    cannotStart(missing);
    return;
  }
  try {
    await client.start();
  } catch (err) {
    cannotStart(`${command} did not start: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  client.onRequest(ApplyWorkspaceEditRequest.type, (params) => reviews.edit(params));
  void sessionOptions.refresh();
  nextEdits.start(context);
  // The client's own handler, but for a message the review says itself.
  client.onNotification(ShowMessageNotification.type, ({ type, message }) => {
    if (reviews.holds(message)) return;
    if (type === MessageType.Error) void vscode.window.showErrorMessage(message);
    else if (type === MessageType.Warning) void vscode.window.showWarningMessage(message);
    else void vscode.window.showInformationMessage(message);
  });
}

/** cannotStart says once why the server is not running, and where to fix it. */
function cannotStart(why: string): void {
  notRunning = why;
  const open = 'Open Setting';
  vscode.window.showErrorMessage(
    `agent-lsp could not start its server: ${why}. Install it (go install ./cmd/agent-lsp in the repository puts it in ~/go/bin) or set "agent-lsp.path" ` +
    `(in a remote window — SSH, WSL, a container, Codespaces, code-server — in the Remote settings), then reload the window.`,
    open,
  ).then((choice) => {
    // A remote window reads machine settings from the Remote settings only.
    const where = vscode.env.remoteName ? 'workbench.action.openRemoteSettings' : 'workbench.action.openSettings';
    if (choice === open) vscode.commands.executeCommand(where, { query: 'agent-lsp.path' });
  });
}

/** run runs a command and says why it failed; undefined: it did. */
async function run(command: string, arg: unknown): Promise<unknown> {
  try {
    const result = await request(command, arg);
    // A proposal's review says what it changes; other answers are said here.
    if (command === 'agent.ask' && result && !(result as AskResult).diff) {
      vscode.window.showInformationMessage(summary(result as AskResult));
    }
    return result ?? {};
  } catch (err) {
    const message = humanError(err instanceof Error ? err.message : String(err));
    if (message === 'Agent run cancelled.') vscode.window.showInformationMessage(message);
    else vscode.window.showErrorMessage(`agent-lsp: ${message}`);
    return undefined;
  }
}

/** request runs a command while the status bar's Agent item spins; it throws the server's error. */
async function request(command: string, arg: unknown): Promise<unknown> {
  if (!client || notRunning) throw new Error(`the server is not running: ${notRunning ?? 'it has not started yet'}`);
  running++;
  status.text = '$(sync~spin) Agent';
  status.tooltip = 'agent-lsp is working (click to cancel)';
  status.show();
  try {
    return await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: arg === undefined ? [] : [arg] });
  } finally {
    running--;
    if (running === 0) status.hide();
  }
}

/** The notifications of runs in progress, by the server's token. */
const progressShown = new Map<string, { report: (message: string) => void; end: () => void }>();

/**
 * runProgress shows a run's work-done progress as a notification with a
 * Cancel button, which asks the server to cancel the run (the same as
 * cancelling its progress anywhere else).
 */
function runProgress(token: string, params: { kind: string; title?: string; message?: string; cancellable?: boolean }): void {
  if (params.kind === 'begin') {
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: params.title ?? 'Agent', cancellable: params.cancellable !== false },
      (progress, cancel) => new Promise<void>((resolve) => {
        cancel.onCancellationRequested(() => client?.sendNotification(WorkDoneProgressCancelNotification.type, { token }));
        progressShown.set(token, { report: (message) => progress.report({ message }), end: resolve });
        if (params.message) progress.report({ message: params.message });
      }),
    );
    return;
  }
  const shown = progressShown.get(token);
  if (params.kind === 'report' && params.message) shown?.report(params.message);
  if (params.kind === 'end') {
    progressShown.delete(token);
    shown?.end();
    void sessionOptions?.refresh(); // a run ended: its model calls moved the meter
  }
}

export async function deactivate(): Promise<void> {
  if (client?.isRunning()) await client.stop();
}

/** missingProgram says why command cannot be started, or undefined when it can. */
function missingProgram(command: string): string | undefined {
  if (path.isAbsolute(command) || command.includes('/') || command.includes('\\')) {
    return executable(command) ? undefined : `there is no program at ${command}`;
  }
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((d) => d !== '');
  const names = process.platform === 'win32' ? [command, command + '.exe'] : [command];
  return dirs.some((d) => names.some((n) => executable(path.join(d, n)))) ? undefined : `${command} is not on the PATH VS Code has`;
}

function executable(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    fs.accessSync(p, process.platform === 'win32' ? fs.constants.F_OK : fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** findServer looks on disk for the candidates serverCommand chooses from. */
function findServer(extensionPath: string, setting: string | undefined): string {
  const exe = process.platform === 'win32' ? 'agent-lsp.exe' : 'agent-lsp';
  const bundled = path.join(extensionPath, 'bin', exe);
  const onPath = missingProgram('agent-lsp') === undefined;
  const gobin = process.env.GOBIN || path.join((process.env.GOPATH ?? '').split(path.delimiter)[0] || path.join(os.homedir(), 'go'), 'bin');
  const goInstalled = path.join(gobin, exe);
  return serverCommand(setting, executable(bundled) ? bundled : undefined, onPath, executable(goInstalled) ? goInstalled : undefined);
}
