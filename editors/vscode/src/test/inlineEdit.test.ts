import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diff, editFor, endOf, InlineEdit, preview, tabAction, viewOf } from '../inlineEdit';

const at = (line: number, character: number) => ({ line, character });
const span = (l1: number, c1: number, l2: number, c2: number) => ({ start: at(l1, c1), end: at(l2, c2) });

// The rename's next step: "value" on line 2 (index 1) becomes "amount".
const rename: InlineEdit = {
  text: 'amount', range: span(1, 11, 1, 16), textDocument: { uri: 'file:///w/scale.py', version: 7 },
  command: { title: 'Accept next edit', command: 'agent.acceptInlineEdit', arguments: [{ uri: 'file:///w/scale.py', version: 7 }] },
};
const ctx = { before: '    return ', after: ' * factor' };
const screen = [span(0, 0, 40, 0)];

test('editFor takes the edit made for the version asked, and drops the rest', () => {
  assert.deepEqual(editFor({ edits: [rename] }, 7), rename);
  // The document moved on while the model thought: a stale range.
  assert.equal(editFor({ edits: [rename] }, 8), undefined);
  assert.equal(editFor({ edits: [] }, 7), undefined);
  assert.equal(editFor(null, 7), undefined);
  assert.equal(editFor({ edits: [{ ...rename, text: undefined }] }, 7), undefined);
  assert.equal(editFor({ edits: [{ ...rename, range: { start: at(1, 11) } }] }, 7), undefined);
});

test('an edit on another line: the old text struck, the new after it, a hint at the cursor', () => {
  const view = viewOf(rename, 'value', ctx, at(0, 16), screen);
  assert.deepEqual(view.removed, rename.range);
  assert.equal(view.inserted, 'amount');
  assert.equal(view.hint, 'Next edit at line 2 · Tab to jump');
  assert.equal(view.hover, 'Next edit (Tab to accept, Esc to dismiss)\n\n```diff\n-    return value * factor\n+    return amount * factor\n```');
});

test('an edit on the cursor\'s line in view needs no hint; out of view it does', () => {
  assert.equal(viewOf(rename, 'value', ctx, at(1, 2), screen).hint, undefined);
  assert.equal(viewOf(rename, 'value', ctx, at(1, 2), [span(20, 0, 60, 0)]).hint, 'Next edit at line 2 · Tab to accept');
  assert.equal(viewOf(rename, 'value', ctx, at(30, 0), [span(20, 0, 60, 0)]).hint, 'Next edit at line 2 · Tab to jump');
});

test('an insertion strikes nothing; a deletion inserts nothing', () => {
  const insert = { ...rename, text: ', y: y', range: span(4, 20, 4, 20) };
  const ins = viewOf(insert, '', { before: '    return point{x: x', after: '}' }, at(0, 0), screen);
  assert.equal(ins.removed, undefined);
  assert.equal(ins.inserted, ', y: y');
  const del = viewOf({ ...rename, text: '' }, 'value', ctx, at(0, 0), screen);
  assert.deepEqual(del.removed, rename.range);
  assert.equal(del.inserted, '');
});

test('preview shows the first line with content and counts the rest', () => {
  assert.equal(preview('amount'), 'amount');
  assert.equal(preview('    y int\n    z int\n'), '    y int … 1 more line');
  assert.equal(preview('a\nb\nc'), 'a … 2 more lines');
  // A new line after the range: it starts on a line of its own.
  assert.equal(preview('\n    y = 2\n    z = 3'), '↵ y = 2 … 1 more line');
  assert.equal(preview('\n\n'), '↵↵');
  assert.equal(preview(''), '');
});

test('diff shows every line and fences past backticks in the code', () => {
  assert.equal(diff('a\nb', 'c'), 'Next edit (Tab to accept, Esc to dismiss)\n\n```diff\n-a\n-b\n+c\n```');
  assert.match(diff('x = ```', 'y'), /^Next edit.*\n\n````diff\n-x = ```\n\+y\n````$/s);
});

test('Tab jumps from elsewhere and accepts on the edit\'s lines', () => {
  assert.equal(tabAction(rename, at(0, 16)), 'jump');
  assert.equal(tabAction(rename, at(5, 0)), 'jump');
  assert.equal(tabAction(rename, at(1, 11)), 'accept');
  assert.equal(tabAction(rename, at(1, 0)), 'accept');
  const multi = { ...rename, range: span(3, 0, 6, 2) };
  assert.equal(tabAction(multi, at(5, 9)), 'accept');
  assert.equal(tabAction(multi, at(7, 0)), 'jump');
});

test('endOf is where the cursor lands after accepting', () => {
  assert.deepEqual(endOf(at(1, 11), 'amount'), at(1, 17));
  assert.deepEqual(endOf(at(1, 11), 'a\n  bc'), at(2, 4));
  assert.deepEqual(endOf(at(1, 11), ''), at(1, 11));
});
