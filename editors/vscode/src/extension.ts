// The VS Code client of agent-lsp: starts the server, adds the "Agent:"
// palette entries, shows each run as a notification the user can cancel,
// and owns the review of a proposal (a multi-file diff with Apply and
// Discard). All agent logic stays in the server.
import * as vscode from 'vscode';
import {
  ApplyWorkspaceEditParams, ApplyWorkspaceEditRequest, ApplyWorkspaceEditResult, ExecuteCommandRequest,
  LanguageClient, LanguageClientOptions, ServerOptions, WorkDoneProgressCancelNotification,
} from 'vscode-languageclient/node';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  applyTextEdits, askArgs, AskArgs, AskResult, feedback, humanError, initializationOptions, proposalOfLabel, serverCommand, serverSettingKeys, summary,
  TextEdit, withAgentCapabilities,
} from './args';

let client: LanguageClient | undefined;
let notRunning: string | undefined; // why the server is not running, once it could not start
let status: vscode.StatusBarItem;
let running = 0;

/** The annotation the server puts on edits of sensitive files. */
const sensitiveAnnotation = 'agent-lsp.sensitive';
/** The URI scheme of the proposed contents the review shows. */
const proposedScheme = 'agent-lsp-proposed';

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const config = () => vscode.workspace.getConfiguration('agent-lsp');
  const command = findServer(context.extensionPath, config().get<string>('path'));
  const serverOptions: ServerOptions = { command, args: ['serve'] };
  const proposed = new ProposedContents();
  const review = new Review(proposed);
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
        // "Apply agent proposal" is the user's go-ahead: its edit is applied, not reviewed again.
        if (command === 'agent.applyProposal') return review.approved(() => next(command, args));
        return next(command, args);
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
  context.subscriptions.push(status, vscode.workspace.registerTextDocumentContentProvider(proposedScheme, proposed));

  const ask = async (prompt: string | undefined, mode?: AskArgs['mode']) => {
    if (!prompt) return;
    const editor = vscode.window.activeTextEditor;
    const sel = editor?.selection;
    const range = sel && { start: { line: sel.start.line, character: sel.start.character }, end: { line: sel.end.line, character: sel.end.character } };
    await run('agent.ask', askArgs(prompt, editor?.document.uri.toString(), range, mode));
  };
  const say = async (command: string, arg: unknown) => {
    const result = await run(command, arg);
    if (result !== undefined) vscode.window.showInformationMessage(feedback(command, result));
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('agent-lsp.ask', async () => ask(await vscode.window.showInputBox({ prompt: 'Ask the agent' }))),
    vscode.commands.registerCommand('agent-lsp.explain', () => ask('Explain what this code does, and point out anything surprising.', 'ask')), // read-only, as the server's Explain action
    // From the palette: the newest pending proposal; from a review: its own.
    vscode.commands.registerCommand('agent-lsp.apply', (id?: string) => review.approved(() => say('agent.applyProposal', id ? { id } : {}))),
    vscode.commands.registerCommand('agent-lsp.discard', (id?: string) => say('agent.discardProposal', id ? { id } : {})),
    vscode.commands.registerCommand('agent-lsp.cancel', () => say('agent.cancel', {})),
    vscode.commands.registerCommand('agent-lsp.newSession', () => say('agent.newSession', undefined)),
    vscode.commands.registerCommand('agent-lsp.keepNotes', () => say('agent.keepNotes', {})),
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
  client.onRequest(ApplyWorkspaceEditRequest.type, (params) => review.edit(params));
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

async function run(command: string, arg: unknown): Promise<unknown> {
  if (!client || notRunning) {
    vscode.window.showErrorMessage(`agent-lsp: the server is not running: ${notRunning ?? 'it has not started yet'}.`);
    return undefined;
  }
  running++;
  status.text = '$(sync~spin) Agent';
  status.tooltip = 'agent-lsp is working (click to cancel)';
  status.show();
  try {
    const result = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: arg === undefined ? [] : [arg] });
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
  }
}

/** ProposedContents serves the proposed text of each file the review shows. */
class ProposedContents implements vscode.TextDocumentContentProvider {
  private texts = new Map<string, string>();
  private changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  set(uri: vscode.Uri, text: string): void {
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
  }
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }
}

/** One file of a proposal, as the review shows it. */
interface ProposedFile {
  uri: vscode.Uri;
  created: boolean;
  original: string;
  proposed: string;
  sensitive?: string; // why, when the file changes what editors, the agent or CI run or read
}

/**
 * Review owns what the user sees of a proposal. The server sends it as a
 * workspace/applyEdit; VS Code's own refactor preview would show it with
 * every change unticked (as needsConfirmation edits start) or not at all
 * (when none needs confirmation), so the extension answers "not applied"
 * and opens its own review instead: the changes editor with every file's
 * diff, and a notification with Apply and Discard. Apply asks the server
 * for the proposal again, and that edit is applied, sensitive files only
 * where the user ticks them. The server keeps the proposal pending until then.
 */
class Review {
  private approving = 0;
  private reviewed = 0;

  constructor(private readonly proposed: ProposedContents) {}

  /** approved runs f, during which the server's edit is applied, not reviewed. */
  async approved<T>(f: () => Promise<T>): Promise<T> {
    this.approving++;
    try {
      return await f();
    } finally {
      this.approving--;
    }
  }

  async edit(params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult> {
    const files = await proposedFiles(params);
    if (this.approving > 0) return this.apply(params, files);
    void this.show(params.label ?? 'agent-lsp', files);
    return { applied: false, failureReason: 'shown for review: nothing is applied until you choose Apply' };
  }

  private async show(label: string, files: ProposedFile[]): Promise<void> {
    const n = ++this.reviewed;
    const resources: [vscode.Uri, vscode.Uri, vscode.Uri][] = files.map((f) => {
      const right = vscode.Uri.from({ scheme: proposedScheme, path: f.uri.path, query: `review=${n}` });
      this.proposed.set(right, f.proposed);
      let left = f.uri;
      if (f.created) {
        left = vscode.Uri.from({ scheme: proposedScheme, path: f.uri.path, query: `review=${n}&original` });
        this.proposed.set(left, '');
      }
      return [f.uri, left, right];
    });
    const { id, request } = proposalOfLabel(label);
    const title = `Agent proposal: ${request}`;
    try {
      await vscode.commands.executeCommand('vscode.changes', title, resources);
    } catch {
      // VS Code before 1.86 has no changes editor: a diff editor per file.
      for (const [uri, left, right] of resources) {
        await vscode.commands.executeCommand('vscode.diff', left, right, `${title}: ${vscode.workspace.asRelativePath(uri)}`, { preview: false });
      }
    }
    const sensitive = files.filter((f) => f.sensitive).length;
    const choice = await vscode.window.showInformationMessage(
      `Agent proposes changes to ${files.length} file${files.length === 1 ? '' : 's'}` +
      (sensitive > 0 ? `, ${sensitive} of them editor, agent or CI configuration (left out unless you tick them)` : '') + '. Apply them?',
      'Apply', 'Discard');
    if (choice === 'Apply' || choice === 'Discard') {
      await vscode.commands.executeCommand(choice === 'Apply' ? 'agent-lsp.apply' : 'agent-lsp.discard', id);
      await closeReviews(title);
    } else vscode.window.showInformationMessage('Agent: the proposal stays pending; "Agent: Apply Proposal" or "Agent: Discard Proposal" settles it.');
  }

  /** apply applies the edit, with the sensitive files the user ticks. */
  private async apply(params: ApplyWorkspaceEditParams, files: ProposedFile[]): Promise<ApplyWorkspaceEditResult> {
    const sensitive = files.filter((f) => f.sensitive);
    let kept = new Set<string>();
    if (sensitive.length > 0) {
      const picked = await vscode.window.showQuickPick(
        sensitive.map((f) => ({ label: vscode.workspace.asRelativePath(f.uri), detail: f.sensitive, picked: false, uri: f.uri })),
        { canPickMany: true, title: 'These files change what editors, the agent or CI run or read: tick those to apply too', ignoreFocusOut: true });
      kept = new Set((picked ?? []).map((p) => p.uri.toString()));
    }
    const leftOut = new Set(sensitive.filter((f) => !kept.has(f.uri.toString())).map((f) => f.uri.toString()));
    const edit = await client!.protocol2CodeConverter.asWorkspaceEdit(withoutFiles(params, leftOut));
    if (leftOut.size === files.length) return { applied: false, failureReason: 'every file was left out' };
    // As VS Code's refactorings do (files.refactoring.autoSave), files that
    // had no unsaved changes are saved; a buffer the user left unsaved stays so.
    const dirty = new Set(vscode.workspace.textDocuments.filter((d) => d.isDirty).map((d) => d.uri.toString()));
    const applied = await vscode.workspace.applyEdit(edit);
    if (applied) {
      for (const f of files) {
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === f.uri.toString());
        if (doc && doc.isDirty && !dirty.has(doc.uri.toString()) && !leftOut.has(doc.uri.toString())) await doc.save();
      }
    }
    if (applied && leftOut.size > 0) {
      vscode.window.showInformationMessage(`Agent: left out ${[...leftOut].map((u) => vscode.workspace.asRelativePath(vscode.Uri.parse(u))).join(', ')}.`);
    }
    return applied ? { applied } : { applied, failureReason: 'VS Code did not apply the edit (a file changed meanwhile?)' };
  }
}

/** closeReviews closes the review's tabs once the proposal is settled. */
async function closeReviews(title: string): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.label.startsWith(title));
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
}

type LspEdit = ApplyWorkspaceEditParams['edit'];
type DocumentChange = NonNullable<LspEdit['documentChanges']>[number];

/**
 * withoutFiles is the edit without the changes to the files in uris, and
 * without its annotations: the user reviewed it, and annotated edits would
 * make VS Code open its refactor preview again, every change unticked.
 */
function withoutFiles(params: ApplyWorkspaceEditParams, uris: Set<string>): LspEdit {
  const touches = (u: string) => uris.has(vscode.Uri.parse(u).toString());
  const edit: LspEdit = { ...params.edit, changeAnnotations: undefined };
  if (edit.documentChanges) {
    edit.documentChanges = edit.documentChanges
      .filter((c: DocumentChange) => !('textDocument' in c ? touches(c.textDocument.uri) : 'uri' in c ? touches(c.uri) : false))
      .map((c: DocumentChange) => 'textDocument' in c
        ? { ...c, edits: c.edits.map((e) => ({ range: e.range, newText: e.newText })) }
        : { ...c, annotationId: undefined });
  }
  if (edit.changes) {
    edit.changes = Object.fromEntries(Object.entries(edit.changes).filter(([u]) => !touches(u))
      .map(([u, edits]) => [u, edits.map((e) => ({ range: e.range, newText: e.newText }))]));
  }
  return edit;
}

/** proposedFiles is each file the edit changes, before and after. */
async function proposedFiles(params: ApplyWorkspaceEditParams): Promise<ProposedFile[]> {
  const annotations = params.edit.changeAnnotations ?? {};
  const byUri = new Map<string, ProposedFile>();
  const fileOf = async (u: string, created: boolean) => {
    const uri = vscode.Uri.parse(u);
    let f = byUri.get(uri.toString());
    if (!f) {
      const original = created ? '' : await currentText(uri);
      f = { uri, created, original, proposed: original };
      byUri.set(uri.toString(), f);
    }
    return f;
  };
  const addEdits = async (u: string, edits: (TextEdit & { annotationId?: string })[]) => {
    const f = await fileOf(u, false);
    f.proposed = applyTextEdits(f.proposed, edits);
    const ann = edits.find((e) => e.annotationId === sensitiveAnnotation);
    if (ann) f.sensitive = annotations[sensitiveAnnotation]?.description ?? 'editor, agent or CI configuration';
  };
  for (const c of params.edit.documentChanges ?? []) {
    if ('textDocument' in c) await addEdits(c.textDocument.uri, c.edits as TextEdit[]);
    else if (c.kind === 'create') await fileOf(c.uri, true);
  }
  for (const [u, edits] of Object.entries(params.edit.changes ?? {})) await addEdits(u, edits);
  return [...byUri.values()];
}

/** currentText is the open buffer's text, else the file's on disk. */
async function currentText(uri: vscode.Uri): Promise<string> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return '';
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
