// Next edit suggestions without VS Code: which answer of
// textDocument/copilotInlineEdit to show, how to show it and what Tab
// does, kept apart from nextEdit.ts so that the tests run in plain Node.

export interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }

/** InlineEdit is one edit of a textDocument/copilotInlineEdit answer: text replaces range. */
export interface InlineEdit {
  text: string;
  range: Range;
  textDocument: { uri: string; version: number };
  command?: { title: string; command: string; arguments?: unknown[] };
}

/**
 * editFor is the answer's edit for the document at version, or undefined:
 * no edit, a malformed one, or one made for another version (the user
 * typed on while the model thought: its range no longer means the same).
 */
export function editFor(result: unknown, version: number): InlineEdit | undefined {
  const edits = (result as { edits?: unknown } | null | undefined)?.edits;
  if (!Array.isArray(edits) || edits.length === 0) return undefined;
  const e = edits[0] as Partial<InlineEdit> | null;
  if (!e || typeof e.text !== 'string' || !isRange(e.range) || e.textDocument?.version !== version) return undefined;
  return e as InlineEdit;
}

function isRange(r: unknown): r is Range {
  const pos = (p: unknown) => typeof (p as Position)?.line === 'number' && typeof (p as Position)?.character === 'number';
  return pos((r as Range)?.start) && pos((r as Range)?.end);
}

/** What the editor shows of an edit. */
export interface EditView {
  /** struck through as removed; undefined for a pure insertion */
  removed?: Range;
  /** the new text, shown as ghost text after the range: its first line, "" for a deletion */
  inserted: string;
  /** hover: the whole change as a diff (Markdown) */
  hover: string;
  /** at the end of the cursor's line, when the edit is elsewhere or out of view */
  hint?: string;
}

/** The text around the replaced range, on its first and last lines. */
export interface Context { before: string; after: string }

/**
 * viewOf is how an edit is shown: old is the text it replaces, ctx the
 * rest of its lines (for the hover's diff), visible the lines on screen.
 */
export function viewOf(edit: InlineEdit, old: string, ctx: Context, cursor: Position, visible: readonly Range[]): EditView {
  const { start, end } = edit.range;
  const view: EditView = { inserted: preview(edit.text), hover: diff(ctx.before + old + ctx.after, ctx.before + edit.text + ctx.after) };
  if (start.line !== end.line || start.character !== end.character) view.removed = edit.range;
  const onCursorLine = cursor.line >= start.line && cursor.line <= end.line;
  const inView = visible.some((r) => r.start.line <= start.line && start.line <= r.end.line);
  if (!onCursorLine || !inView) {
    view.hint = `Next edit at line ${start.line + 1} · Tab to ${tabAction(edit, cursor)}`;
  }
  return view;
}

/**
 * preview is the ghost text of a new text: its first line with content
 * (marked ↵ when it starts on a new line), then how many lines follow; a
 * full preview is in the hover.
 */
export function preview(text: string): string {
  if (text === '') return '';
  const lines = text.split('\n');
  let first = lines.findIndex((l) => l.trim() !== '');
  if (first < 0) return '↵'.repeat(lines.length - 1) || text; // blank lines, or spaces alone
  let last = lines.length - 1;
  while (lines[last].trim() === '') last--;
  const more = last - first;
  const shown = first === 0 ? lines[0] : '↵ ' + lines[first].trim();
  return more === 0 ? shown : `${shown} … ${more} more line${more === 1 ? '' : 's'}`;
}

/** diff is a Markdown diff block of whole lines: old's lines removed, new's added. */
export function diff(old: string, neu: string): string {
  const body = [...old.split('\n').map((l) => '-' + l), ...neu.split('\n').map((l) => '+' + l)].join('\n');
  let fence = '```';
  while (body.includes(fence)) fence += '`';
  return `Next edit (Tab to accept, Esc to dismiss)\n\n${fence}diff\n${body}\n${fence}`;
}

/**
 * tabAction is what Tab does: with the cursor on a line the edit touches,
 * accept it; elsewhere, jump to it first, so that it is seen before it is
 * applied.
 */
export function tabAction(edit: InlineEdit, cursor: Position): 'jump' | 'accept' {
  return cursor.line >= edit.range.start.line && cursor.line <= edit.range.end.line ? 'accept' : 'jump';
}

/** endOf is where text ends when inserted at start: where the cursor goes after accepting. */
export function endOf(start: Position, text: string): Position {
  const lines = text.split('\n');
  if (lines.length === 1) return { line: start.line, character: start.character + text.length };
  return { line: start.line + lines.length - 1, character: lines[lines.length - 1].length };
}
