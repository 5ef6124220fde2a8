// The review of the agent's proposals: each proposal the server sends is
// shown as a changes editor (every file's diff) that carries its own choice
// — Apply, Apply with Sensitive Files…, Discard — in its title bar, in the
// status bar and in a notification, for as long as the proposal is pending.
// One state per proposal, following the server's: whichever way it settles
// (a button, the palette, a code action, the editor holding its changes),
// its review closes and the user is told what happened.
import * as vscode from 'vscode';
import { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult } from 'vscode-languageclient/node';
import { applyTextEdits, feedback, humanError, proposalOfLabel, TextEdit, withBOMOf } from './args';
import {
  alreadySettled, appliedDetails, appliedMessage, ApplyReport, choices, detailsButton, notAppliedMessage, ProposalState, refusedMessage, reviewMessage, sensitiveReason, settled, stateAfter,
  statesOf, stillPending, verdictsOf,
} from './proposals';

/** The URI scheme of the proposed contents the review shows. */
export const proposedScheme = 'agent-lsp-proposed';

/** Context keys of the review's title-bar buttons (package.json's editor/title menu). */
const reviewActiveKey = 'agent-lsp.reviewActive';
const reviewSensitiveKey = 'agent-lsp.reviewSensitive';

type LspEdit = ApplyWorkspaceEditParams['edit'];
type DocumentChange = NonNullable<LspEdit['documentChanges']>[number];

/** What the review needs of the extension's connection to the server. */
export interface Server {
  /** request runs an agent.* command; it throws with the server's error. */
  request(command: string, arg: unknown): Promise<unknown>;
  /** status is agent.status's answer, asked without showing the user anything. */
  status(): Promise<unknown>;
  asWorkspaceEdit(edit: LspEdit): Promise<vscode.WorkspaceEdit>;
}

/** ProposedContents serves the proposed text of each file the review shows. */
export class ProposedContents implements vscode.TextDocumentContentProvider {
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

/** One proposal under review. */
interface Reviewed {
  id: string; // the server's name, "proposal-3"; "" for a server that names none (the newest pending)
  title: string; // the changes editor's
  files: ProposedFile[];
  resources: [vscode.Uri, vscode.Uri, vscode.Uri][]; // the changes editor's: file, before, after
  state: ProposalState;
  note?: vscode.Disposable; // the status bar's word that it stays pending, gone once settled
}

/** How the user chose to apply: sensitive files left out, or ticked in a list. */
type ApplyMode = 'without' | 'pick';

/**
 * Reviews owns what the user sees of proposals. The server sends each as a
 * workspace/applyEdit; VS Code's own refactor preview would show it with
 * every change unticked (as needsConfirmation edits start) or not at all
 * (when none needs confirmation), so the extension answers "not applied"
 * and opens its own review instead. Apply asks the server for the proposal
 * again, and that edit is applied — sensitive files only where the user
 * ticks them — while the server keeps the proposal pending until then.
 */
export class Reviews {
  private reviewed = new Map<string, Reviewed>(); // by id, while pending or applying
  private known = new Map<string, ProposalState>(); // every proposal seen, for its old notification
  private approvals = new Map<string, ApplyMode>(); // applies asked for, by id ("" the newest)
  private reports = new Map<string, ApplyReport>(); // what the last apply of each did
  private applying = 0; // applies of the extension's in flight
  private held: string[] = []; // the server's messages about them
  private shown = 0;
  private refreshing?: NodeJS.Timeout;

  constructor(
    private readonly server: Server,
    private readonly proposed: ProposedContents,
    private readonly status: vscode.StatusBarItem,
  ) {
    status.command = 'agent-lsp.review.choose';
  }

  /** register adds the review's commands and follows the active tab. */
  register(context: vscode.ExtensionContext): void {
    const onCurrent = (f: (r: Reviewed) => Promise<void>) => async () => {
      const r = this.current();
      if (r) await f(r);
      else vscode.window.showInformationMessage('Agent: no proposal is waiting for review.');
    };
    context.subscriptions.push(
      vscode.commands.registerCommand('agent-lsp.review.apply', onCurrent((r) => this.choose(r.id, choices.apply))),
      vscode.commands.registerCommand('agent-lsp.review.applyWithSensitive', onCurrent((r) => this.choose(r.id, choices.applyWithSensitive))),
      vscode.commands.registerCommand('agent-lsp.review.discard', onCurrent((r) => this.choose(r.id, choices.discard))),
      vscode.commands.registerCommand('agent-lsp.review.choose', onCurrent((r) => this.pickChoice(r))),
      vscode.window.tabGroups.onDidChangeTabs(() => this.updateChoice()),
      vscode.window.tabGroups.onDidChangeTabGroups(() => this.updateChoice()),
      // The editor holding a proposal's changes applies it (the server notices): follow.
      vscode.workspace.onDidChangeTextDocument((e) => e.document.uri.scheme === 'file' && this.refreshSoon()),
      vscode.workspace.onDidSaveTextDocument(() => this.refreshSoon()),
    );
  }

  /**
   * holds reports whether the server's message is about an apply of the
   * extension's in flight ("agent-lsp: proposal-3 not applied: …"): then it
   * is held, and said only if the apply's own answer does not say it.
   */
  holds(message: string): boolean {
    if (this.applying === 0 || !/^agent-lsp: proposal-\d+ not applied: /.test(message)) return false;
    this.held.push(message);
    return true;
  }

  /** edit answers the server's workspace/applyEdit: applied when the user chose Apply, else reviewed. */
  async edit(params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult> {
    const { id = '', request } = proposalOfLabel(params.label);
    const files = await proposedFiles(params);
    const mode = this.approvals.get(id) ?? this.approvals.get('');
    if (mode) return this.applyEdit(id, params, files, mode);
    void this.show(id, request, files);
    return { applied: false, failureReason: 'shown for review: nothing is applied until you choose Apply' };
  }

  /**
   * apply applies the proposal id (undefined: the newest pending), leaving
   * its sensitive files out or letting the user tick them, and says what it
   * did. The palette, the review's buttons and the code action come here.
   */
  async apply(id: string | undefined, mode: ApplyMode): Promise<void> {
    const key = id ?? '';
    const r = this.reviewed.get(key);
    if (r && mode === 'without' && r.files.every((f) => f.sensitive)) mode = 'pick'; // nothing to apply without them
    this.approvals.set(key, mode);
    if (id) this.setState(id, 'applying');
    this.applying++;
    let result: unknown;
    let error: string | undefined;
    try {
      result = await this.server.request('agent.applyProposal', id ? { id } : {});
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    } finally {
      this.approvals.delete(key);
      this.applying--;
    }
    for (const message of this.held.splice(0)) {
      if (message !== `agent-lsp: ${error}`) vscode.window.showErrorMessage(message);
    }
    const after = stateAfter('agent.applyProposal', result, error) ?? await this.stateOnServer(id);
    if (after) this.setState(after.id, after.state);
    else if (id) this.setState(id, 'pending'); // unknown: the choice stays reachable, and refresh follows the server
    const name = after?.id ?? id ?? 'the proposal';
    const report = this.reports.get(name);
    this.reports.delete(name);
    const answer = (result ?? {}) as { applied?: boolean; reason?: string };
    if (error === undefined) {
      if (answer.applied) sayApplied(name, report);
      else vscode.window.showInformationMessage(notAppliedMessage(name, answer.reason));
    } else if (after && after.state !== 'pending') {
      vscode.window.showInformationMessage(alreadySettled(after.id, after.state));
    } else {
      this.sayError(error, after?.state === 'pending' ? after.id : undefined);
    }
    this.refreshSoon(0);
  }

  /** discard drops the proposal id (undefined: the newest pending) and says so. */
  async discard(id: string | undefined): Promise<void> {
    let result: unknown;
    let error: string | undefined;
    try {
      result = await this.server.request('agent.discardProposal', id ? { id } : {});
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    const after = stateAfter('agent.discardProposal', result, error);
    if (after) this.setState(after.id, after.state);
    if (error === undefined) vscode.window.showInformationMessage(feedback('agent.discardProposal', result));
    else if (after) vscode.window.showInformationMessage(alreadySettled(after.id, after.state));
    else this.sayError(error, undefined);
    this.refreshSoon(0);
  }

  /** refresh follows the server's states of the proposals under review. */
  async refresh(): Promise<void> {
    if (this.applying > 0) {
      this.refreshSoon(); // its answer says what became of it; follow the rest after
      return;
    }
    const open = [...this.reviewed.values()].filter((r) => r.id !== '' && r.state === 'pending');
    if (open.length === 0) return;
    let states: Map<string, ProposalState>;
    try {
      states = statesOf(await this.server.status());
    } catch {
      return; // the server is gone: the next command says so
    }
    for (const r of open) {
      const state = states.get(r.id);
      if (this.reviewed.get(r.id)?.state !== 'pending' || state === 'pending' || state === 'applying') continue;
      // Settled some other way: the editor holds its changes, another client…
      this.setState(r.id, state ?? 'discarded');
      vscode.window.showInformationMessage(state
        ? `Agent: ${r.id} is ${state}; its review is closed.`
        : `Agent: the server no longer has ${r.id} (it restarted?); nothing was applied, and its review is closed.`);
    }
  }

  /** stateOnServer is the proposal id's state as the server has it, when an answer did not say. */
  private async stateOnServer(id: string | undefined): Promise<{ id: string; state: ProposalState } | undefined> {
    if (!id) return undefined;
    try {
      const state = statesOf(await this.server.status()).get(id);
      return state && { id, state };
    } catch {
      return undefined;
    }
  }

  private refreshSoon(delay = 500): void {
    if (this.reviewed.size === 0) return;
    clearTimeout(this.refreshing);
    this.refreshing = setTimeout(() => void this.refresh(), delay);
  }

  /** show opens the review of a proposal and asks for the choice. */
  private async show(id: string, request: string, files: ProposedFile[]): Promise<void> {
    const again = this.reviewed.get(id);
    const n = ++this.shown;
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
    const r: Reviewed = { id, title: `Agent ${id || 'proposal'}: ${request}`, files, resources, state: 'pending' };
    this.reviewed.set(id, r);
    this.known.set(id, 'pending');
    if (again) await closeTabs(again.title); // sent again: the newer edit is what Apply applies
    await this.open(r);
    this.updateChoice();
    if (!again) await this.notify(r);
  }

  /** open opens r's changes editor (a diff per file before VS Code 1.86). */
  private async open(r: Reviewed): Promise<void> {
    try {
      await vscode.commands.executeCommand('vscode.changes', r.title, r.resources);
    } catch {
      for (const [uri, left, right] of r.resources) {
        await vscode.commands.executeCommand('vscode.diff', left, right, `${r.title}: ${vscode.workspace.asRelativePath(uri)}`, { preview: false });
      }
    }
  }

  /**
   * notify offers the choice as a notification too. VS Code gives no way
   * to close one, so once the proposal is settled its buttons say so.
   */
  private async notify(r: Reviewed): Promise<void> {
    const sensitive = r.files.filter((f) => f.sensitive).length;
    const buttons: string[] = sensitive > 0 ? [choices.apply, choices.applyWithSensitive, choices.discard] : [choices.apply, choices.discard];
    // What the run-end review said (the check, the tests) goes with the choice.
    const verdicts = r.id ? verdictsOf(await this.server.status().catch(() => undefined), r.id) : [];
    const choice = await vscode.window.showInformationMessage(reviewMessage(r.id || undefined, r.files.length, sensitive, verdicts), ...buttons);
    if (choice) await this.choose(r.id, choice);
    // Closed unanswered (or by "Clear All"): said where the choice stays, without another notification.
    else if (this.known.get(r.id) === 'pending' && this.reviewed.has(r.id)) r.note = vscode.window.setStatusBarMessage(stillPending(r.id || 'the proposal'), 10_000);
  }

  /** choose does what a button of r's review names, if r is still pending. */
  private async choose(id: string, choice: string): Promise<void> {
    const state = this.known.get(id);
    if (id !== '' && state !== 'pending') {
      vscode.window.showInformationMessage(alreadySettled(id, state ?? 'discarded'));
      return;
    }
    if (choice === choices.discard) await this.discard(id || undefined);
    else await this.apply(id || undefined, choice === choices.applyWithSensitive ? 'pick' : 'without');
  }

  /** pickChoice is the status bar item's menu: the review's choices, and the review itself. */
  private async pickChoice(r: Reviewed): Promise<void> {
    const show = 'Show the Review';
    const sensitive = r.files.filter((f) => f.sensitive).length;
    const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;
    const items: vscode.QuickPickItem[] = [
      { label: choices.apply, description: sensitive > 0 ? `writes ${files(r.files.length - sensitive)}, leaves out ${files(sensitive)} of editor, agent or CI configuration` : `writes ${files(r.files.length)}` },
      ...(sensitive > 0 ? [{ label: choices.applyWithSensitive, description: 'lists the sensitive files, each with its reason, to tick' }] : []),
      { label: choices.discard, description: 'drops the proposal; no file changes' },
      { label: show, description: 'every file\'s diff' },
    ];
    const choice = await vscode.window.showQuickPick(items, { title: `${r.title} (${files(r.files.length)})` });
    if (choice?.label === show) await this.open(r);
    else if (choice) await this.choose(r.id, choice.label);
  }

  /** setState records a proposal's state; a settled one's review closes. */
  private setState(id: string, state: ProposalState): void {
    this.known.set(id, state);
    const r = this.reviewed.get(id);
    if (!r) return;
    r.state = state;
    if (settled(state)) {
      r.note?.dispose();
      this.reviewed.delete(id);
      void closeTabs(r.title).then(() => this.updateChoice());
    }
    this.updateChoice();
  }

  /** current is the review in the active tab, else the newest one pending. */
  private current(): Reviewed | undefined {
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    const pending = [...this.reviewed.values()].filter((r) => r.state === 'pending');
    return pending.find((r) => tab && isTabOf(tab, r.title)) ?? pending[pending.length - 1];
  }

  /** updateChoice shows the choice where the user reads: the title bar of the review's tab, and the status bar. */
  private updateChoice(): void {
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    const active = [...this.reviewed.values()].find((r) => r.state === 'pending' && tab && isTabOf(tab, r.title));
    void vscode.commands.executeCommand('setContext', reviewActiveKey, active !== undefined);
    void vscode.commands.executeCommand('setContext', reviewSensitiveKey, active?.files.some((f) => f.sensitive) ?? false);
    const r = this.current();
    if (!r) {
      this.status.hide();
      return;
    }
    const more = [...this.reviewed.values()].filter((o) => o.state === 'pending').length - 1;
    this.status.text = `$(git-pull-request) Agent ${r.id || 'proposal'}: Apply or Discard…`;
    this.status.tooltip = `${r.title}: ${r.files.length} file${r.files.length === 1 ? '' : 's'}, nothing applied yet. Click to apply, discard or show it.` +
      (more > 0 ? ` ${more} more proposal${more === 1 ? '' : 's'} pending.` : '');
    this.status.show();
  }

  /** applyEdit applies the server's edit as the user chose, and keeps what it did for the message. */
  private async applyEdit(id: string, params: ApplyWorkspaceEditParams, files: ProposedFile[], mode: ApplyMode): Promise<ApplyWorkspaceEditResult> {
    const sensitive = files.filter((f) => f.sensitive);
    let kept = new Set<string>();
    if (sensitive.length > 0 && mode === 'pick') {
      const picked = await vscode.window.showQuickPick(
        sensitive.map((f) => ({ label: vscode.workspace.asRelativePath(f.uri), detail: f.sensitive, picked: false, uri: f.uri })),
        { canPickMany: true, title: 'These files change what editors, the agent or CI run or read: tick those to apply too', ignoreFocusOut: true });
      if (!picked) return { applied: false, failureReason: 'you closed the list of sensitive files without choosing' };
      kept = new Set(picked.map((p) => p.uri.toString()));
    }
    const leftOut = sensitive.filter((f) => !kept.has(f.uri.toString()));
    if (leftOut.length === files.length) {
      return { applied: false, failureReason: `every file is editor, agent or CI configuration, and none was ticked ("${choices.applyWithSensitive}" lets you tick them)` };
    }
    const skip = new Set(leftOut.map((f) => f.uri.toString()));
    const dirty = new Set(vscode.workspace.textDocuments.filter((d) => d.isDirty).map((d) => d.uri.toString()));
    const failure = await writeFiles(this.server, params, files.filter((f) => !skip.has(f.uri.toString())), skip, dirty);
    if (failure) return { applied: false, failureReason: failure };
    // As VS Code's refactorings do (files.refactoring.autoSave), files that
    // had no unsaved changes are saved; a buffer the user left unsaved stays so.
    const report: ApplyReport = { saved: [], unsaved: [], leftOut: leftOut.map((f) => ({ path: vscode.workspace.asRelativePath(f.uri), why: f.sensitive! })) };
    for (const f of files.filter((f) => !skip.has(f.uri.toString()))) {
      const path = vscode.workspace.asRelativePath(f.uri);
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === f.uri.toString());
      if (dirty.has(f.uri.toString())) report.unsaved.push(path);
      else if (!doc || !doc.isDirty || (await doc.save())) report.saved.push(path);
      else report.unsaved.push(path);
    }
    this.reports.set(id, report);
    return { applied: true };
  }

  /** sayError shows a failed request in plain words, and that the proposal stays pending. */
  private sayError(error: string, pending: string | undefined): void {
    vscode.window.showErrorMessage(refusedMessage(humanError(error), pending));
  }
}

/**
 * sayApplied says what applying the proposal id did. Where files were left
 * out or left unsaved it has a Details button, which lists them with their
 * reasons; a notification with a button is also shown expanded, its whole
 * text wrapped, where one without is cut to a line.
 */
function sayApplied(id: string, report: ApplyReport | undefined): void {
  const message = appliedMessage(id, report);
  const details = appliedDetails(report);
  if (!details) {
    void vscode.window.showInformationMessage(message);
    return;
  }
  void vscode.window.showInformationMessage(message, detailsButton).then((choice) => {
    if (choice === detailsButton) void vscode.window.showInformationMessage(`Agent: what applying ${id} did`, { modal: true, detail: details });
  });
}

/**
 * isTabOf reports whether tab shows the review titled title: VS Code adds
 * "(3 files)" to a changes editor's title, a diff editor's has ": file".
 */
function isTabOf(tab: vscode.Tab, title: string): boolean {
  return tab.label === title || tab.label.startsWith(title + ' (') || tab.label.startsWith(title + ': ');
}

/** closeTabs closes a review's tabs once its proposal is settled. */
async function closeTabs(title: string): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => isTabOf(t, title));
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
}

/**
 * writeFiles applies the proposal's edit (params) to files, those not left
 * out (skip), and says why not when it fails. VS Code opens, behind the active editor,
 * a file that turns dirty with no editor showing it (800 ms later, unless
 * its save has begun by then): once the review closed, that tab came to
 * the front. So a file no editor shows, and with no unsaved changes (dirty),
 * is written whole and never turns dirty — a new one created with its
 * content within the edit (undo deletes it), an existing one once the edit
 * applied — and only those in editors are edited there, to be saved.
 */
async function writeFiles(server: Server, params: ApplyWorkspaceEditParams, files: ProposedFile[], skip: Set<string>, dirty: Set<string>): Promise<string | undefined> {
  const shown = inTextEditors();
  const whole = files.filter((f) => !shown.has(f.uri.toString()) && !dirty.has(f.uri.toString()));
  const edit = await server.asWorkspaceEdit(withoutFiles(params, new Set([...skip, ...whole.map((f) => f.uri.toString())])));
  // A new file must still not exist, as the server's own edit requires.
  const created = whole.filter((f) => f.created);
  for (const f of created) edit.createFile(f.uri, { contents: new TextEncoder().encode(f.proposed) });
  // (size counts the files with text edits only.)
  if ((edit.size > 0 || created.length > 0) && !(await vscode.workspace.applyEdit(edit))) return 'VS Code did not apply the edit (a file changed meanwhile?)';
  for (const f of whole.filter((f) => !f.created)) {
    try {
      await vscode.workspace.fs.writeFile(f.uri, withBOMOf(await vscode.workspace.fs.readFile(f.uri), f.proposed));
    } catch (err) {
      return `${vscode.workspace.asRelativePath(f.uri)} could not be written: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  return undefined;
}

/** inTextEditors is every file a text editor's tab shows, in any group (a diff's does not count: VS Code still opens the file). */
function inTextEditors(): Set<string> {
  return new Set(vscode.window.tabGroups.all.flatMap((g) => g.tabs)
    .flatMap((t) => t.input instanceof vscode.TabInputText ? [t.input.uri.toString()] : []));
}

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

/** proposedFiles is each file the edit changes, before and after, with why it is sensitive. */
async function proposedFiles(params: ApplyWorkspaceEditParams): Promise<ProposedFile[]> {
  const annotations = params.edit.changeAnnotations ?? {};
  const byUri = new Map<string, ProposedFile>();
  const fileOf = async (u: string, created: boolean, annotationId?: string) => {
    const uri = vscode.Uri.parse(u);
    let f = byUri.get(uri.toString());
    if (!f) {
      const original = created ? '' : await currentText(uri);
      f = { uri, created, original, proposed: original };
      byUri.set(uri.toString(), f);
    }
    f.sensitive ??= sensitiveReason(annotationId, annotations);
    return f;
  };
  const addEdits = async (u: string, edits: (TextEdit & { annotationId?: string })[]) => {
    const f = await fileOf(u, false, edits.find((e) => e.annotationId)?.annotationId);
    f.proposed = applyTextEdits(f.proposed, edits);
  };
  for (const c of params.edit.documentChanges ?? []) {
    if ('textDocument' in c) await addEdits(c.textDocument.uri, c.edits as TextEdit[]);
    else if (c.kind === 'create') await fileOf(c.uri, true, c.annotationId);
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
