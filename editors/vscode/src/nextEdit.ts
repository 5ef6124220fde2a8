// Next edit suggestions: after each change the user makes in the active
// editor, ask the server (textDocument/copilotInlineEdit) for the edit
// likely to come next, anywhere near the cursor, and show it where it
// applies as decorations: the old text struck through, the new as ghost
// text after it, and a hint at the cursor when it is elsewhere. Tab jumps
// to it, then accepts it; Esc dismisses it. Stable API only (decorations,
// a context key and keybindings): the proposed inline-edit API cannot ship
// in a .vsix.
import * as vscode from 'vscode';
import { DidChangeTextDocumentNotification, DidCloseTextDocumentNotification, DidOpenTextDocumentNotification, ExecuteCommandRequest, LanguageClient } from 'vscode-languageclient/node';
import { editFor, endOf, InlineEdit, tabAction, viewOf } from './inlineEdit';
import { SentVersions } from './sentVersions';

const visibleKey = 'agentLsp.nextEditVisible';

interface Shown { editor: vscode.TextEditor; version: number; edit: InlineEdit; range: vscode.Range }

export class NextEdits implements vscode.Disposable {
  private shown?: Shown;
  private pending?: vscode.CancellationTokenSource;
  /** Whether the server has a next-edit model; undefined: not known (then ask, it answers at once when off). */
  private enabled?: boolean;
  /** Set while an accepted edit is applied: that change asks for nothing until the server knows it was accepted. */
  private applying = false;
  /** What the server has of each document, by the server's URI. */
  private readonly sent = new SentVersions();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly removed = vscode.window.createTextEditorDecorationType({
    textDecoration: 'line-through',
    backgroundColor: new vscode.ThemeColor('diffEditor.removedTextBackground'),
  });
  private readonly inserted = vscode.window.createTextEditorDecorationType({});
  private readonly hint = vscode.window.createTextEditorDecorationType({});

  constructor(private readonly client: LanguageClient) {}

  /** start listens once the client runs (its didChange feature exists then). */
  start(context: vscode.ExtensionContext): void {
    const opens = this.client.getFeature(DidOpenTextDocumentNotification.method);
    const changes = this.client.getFeature(DidChangeTextDocumentNotification.method);
    const closes = this.client.getFeature(DidCloseTextDocumentNotification.method);
    this.disposables.push(
      opens.onNotificationSent(({ params }) => this.sent.opened(params.textDocument.uri, params.textDocument.version)),
      changes.onNotificationSent(({ params }) => this.sent.changed(params.textDocument.uri, params.textDocument.version)),
      closes.onNotificationSent(({ params }) => this.sent.closed(params.textDocument.uri)),
      vscode.workspace.onDidChangeTextDocument((e) => this.changed(e)),
      vscode.window.onDidChangeActiveTextEditor(() => this.clear()),
      vscode.window.onDidChangeTextEditorSelection((e) => { if (e.textEditor === this.shown?.editor) this.render(); }),
      vscode.window.onDidChangeTextEditorVisibleRanges((e) => { if (e.textEditor === this.shown?.editor) this.render(); }),
      // The server learns the new settings on its own; whether they turn
      // next edits on is asked again after the next request.
      vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('agent-lsp')) this.enabled = undefined; }),
    );
    context.subscriptions.push(this);
    void this.refreshEnabled();
  }

  /** tab jumps to the edit, or accepts it when the cursor is on its lines. */
  async tab(): Promise<void> {
    const s = this.current();
    if (!s) return;
    if (tabAction(s.edit, s.editor.selection.active) === 'accept') return this.accept();
    s.editor.selection = new vscode.Selection(s.range.start, s.range.start);
    s.editor.revealRange(s.range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    this.render();
  }

  /** accept applies the edit, then tells the server (after the change reached it) so the next suggestion builds on it. */
  async accept(): Promise<void> {
    const s = this.current();
    if (!s) return;
    this.clear();
    const { editor, edit, range } = s;
    this.applying = true;
    let applied: boolean;
    try {
      applied = await editor.edit((b) => b.replace(range, edit.text));
    } finally {
      this.applying = false;
    }
    if (!applied) return;
    const end = endOf(edit.range.start, edit.text);
    editor.selection = new vscode.Selection(end.line, end.character, end.line, end.character);
    const command = edit.command;
    if (command) {
      await this.whenSent(editor.document, editor.document.version);
      try {
        await this.client.sendRequest(ExecuteCommandRequest.type, { command: command.command, arguments: command.arguments ?? [] });
      } catch (err) {
        this.client.warn(`next edit: ${command.command} failed`, err, false);
      }
    }
    if (vscode.window.activeTextEditor === editor) void this.request(editor);
  }

  dismiss(): void {
    this.clear();
  }

  dispose(): void {
    this.clear();
    for (const d of this.disposables) d.dispose();
    this.removed.dispose();
    this.inserted.dispose();
    this.hint.dispose();
  }

  private changed(e: vscode.TextDocumentChangeEvent): void {
    // A save changes no content (only the dirty state): the version stays.
    if (e.contentChanges.length === 0) return;
    if (this.shown?.editor.document === e.document) this.clear(); // its version is gone
    if (this.applying) return;
    const editor = vscode.window.activeTextEditor;
    if (editor?.document === e.document) void this.request(editor);
  }

  /** request asks for the next edit at the cursor; the next change cancels it. */
  private async request(editor: vscode.TextEditor): Promise<void> {
    this.pending?.cancel();
    const doc = editor.document;
    if (this.enabled === false || (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled')) return;
    const cts = new vscode.CancellationTokenSource();
    this.pending = cts;
    const version = doc.version;
    const pos = editor.selection.active;
    // The server refuses a version it has not seen: ask once the client sent it.
    await this.whenSent(doc, version);
    if (cts.token.isCancellationRequested) return;
    let result: unknown;
    try {
      result = await this.client.sendRequest('textDocument/copilotInlineEdit', {
        textDocument: { uri: this.client.code2ProtocolConverter.asUri(doc.uri), version },
        position: { line: pos.line, character: pos.character },
      }, cts.token);
    } catch (err) {
      if (!cts.token.isCancellationRequested) this.client.warn('next edit: the request failed', err, false);
      return;
    } finally {
      if (this.pending === cts) this.pending = undefined;
      cts.dispose();
    }
    if (this.enabled === undefined) void this.refreshEnabled();
    const edit = editFor(result, version);
    if (!edit || cts.token.isCancellationRequested || doc.version !== version || vscode.window.activeTextEditor !== editor) return;
    const range = new vscode.Range(edit.range.start.line, edit.range.start.character, edit.range.end.line, edit.range.end.character);
    if (!doc.validateRange(range).isEqual(range)) return;
    this.shown = { editor, version, edit, range };
    void vscode.commands.executeCommand('setContext', visibleKey, true);
    this.render();
  }

  /** current is the suggestion shown, if still for its document's version. */
  private current(): Shown | undefined {
    const s = this.shown;
    if (s && s.editor.document.version !== s.version) {
      this.clear();
      return undefined;
    }
    return s;
  }

  private render(): void {
    const s = this.shown;
    if (!s) return;
    const { editor, edit, range } = s;
    const doc = editor.document;
    const cursor = editor.selection.active;
    const view = viewOf(edit, doc.getText(range), {
      before: doc.lineAt(range.start.line).text.slice(0, range.start.character),
      after: doc.lineAt(range.end.line).text.slice(range.end.character),
    }, cursor, editor.visibleRanges);
    const hover = new vscode.MarkdownString(view.hover);
    editor.setDecorations(this.removed, view.removed ? [{ range, hoverMessage: hover }] : []);
    editor.setDecorations(this.inserted, view.inserted === '' ? [] : [{
      range: new vscode.Range(range.end, range.end),
      hoverMessage: hover,
      renderOptions: { after: {
        // No-break spaces: a decoration's text collapses runs of spaces,
        // and an indented line must show its indentation.
        contentText: view.inserted.replace(/ /g, '\u00a0'),
        color: new vscode.ThemeColor('editorGhostText.foreground'),
        backgroundColor: new vscode.ThemeColor('diffEditor.insertedTextBackground'),
        fontStyle: 'italic',
      } },
    }]);
    const eol = doc.lineAt(cursor.line).range.end;
    editor.setDecorations(this.hint, view.hint === undefined ? [] : [{
      range: new vscode.Range(eol, eol),
      hoverMessage: hover,
      renderOptions: { after: {
        contentText: view.hint,
        color: new vscode.ThemeColor('editorCodeLens.foreground'),
        fontStyle: 'italic',
        margin: '0 0 0 2em',
      } },
    }]);
  }

  private clear(): void {
    this.pending?.cancel();
    const s = this.shown;
    if (!s) return;
    this.shown = undefined;
    for (const type of [this.removed, this.inserted, this.hint]) s.editor.setDecorations(type, []);
    void vscode.commands.executeCommand('setContext', visibleKey, false);
  }

  /** whenSent resolves once the client has sent doc at version (or after 2 s, not to hang on a lost event). */
  private whenSent(doc: vscode.TextDocument, version: number): Promise<void> {
    if (version <= 1) return Promise.resolve(); // didOpen goes before any request
    return this.sent.whenSent(this.client.code2ProtocolConverter.asUri(doc.uri), version, 2000);
  }

  private async refreshEnabled(): Promise<void> {
    try {
      const status = await this.client.sendRequest(ExecuteCommandRequest.type, { command: 'agent.status', arguments: [] });
      // model is left out when off.
      const nes = (status as { nextEdits?: { model?: string } } | null)?.nextEdits;
      this.enabled = nes ? Boolean(nes.model) : undefined;
    } catch {
      this.enabled = undefined;
    }
  }
}
