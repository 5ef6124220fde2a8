import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  alreadySettled, appliedDetails, appliedMessage, noticeLimit, notAppliedMessage, refusedMessage, reviewMessage, sensitiveReason, settled, stateAfter, statesOf, stillPending, verdictsOf,
} from '../proposals';

test('statesOf reads each proposal\'s state from agent.status', () => {
  const status = { runs: [], proposals: [
    { id: 'proposal-1', state: 'applied', files: ['a.py'] },
    { id: 'proposal-2', state: 'pending', files: ['b.py'] },
    { id: 'proposal-3', state: 'exploded' },
    { state: 'pending' },
  ] };
  assert.deepEqual([...statesOf(status)], [['proposal-1', 'applied'], ['proposal-2', 'pending']]);
  assert.equal(statesOf(undefined).size, 0);
  assert.equal(statesOf({ proposals: null }).size, 0);
});

test('stateAfter follows the server\'s answers and refusals', () => {
  assert.deepEqual(stateAfter('agent.applyProposal', { id: 'proposal-1', applied: true }), { id: 'proposal-1', state: 'applied' });
  assert.deepEqual(stateAfter('agent.applyProposal', { id: 'proposal-1', applied: false, reason: 'declined' }), { id: 'proposal-1', state: 'pending' });
  assert.deepEqual(stateAfter('agent.discardProposal', { id: 'proposal-2', state: 'discarded' }), { id: 'proposal-2', state: 'discarded' });
  assert.deepEqual(stateAfter('agent.applyProposal', undefined, 'proposal-3 is already applied'), { id: 'proposal-3', state: 'applied' });
  assert.deepEqual(stateAfter('agent.discardProposal', undefined, 'proposal-3 is already discarded'), { id: 'proposal-3', state: 'discarded' });
  assert.deepEqual(stateAfter('agent.applyProposal', undefined, 'proposal-4 not applied: hello.py: the file changed where the agent wants to edit it'),
    { id: 'proposal-4', state: 'pending' });
  assert.equal(stateAfter('agent.applyProposal', undefined, 'there is no pending proposal'), undefined);
  assert.equal(stateAfter('agent.applyProposal', {}), undefined);
  assert.equal(stateAfter('agent.cancel', { id: 'run-1' }), undefined);
});

test('settled is applied or discarded', () => {
  assert.deepEqual(['pending', 'applying', 'applied', 'discarded', undefined].map((s) => settled(s as never)), [false, false, true, true, false]);
});

test('appliedMessage names what was saved, left unsaved and left out', () => {
  assert.equal(appliedMessage('proposal-1'), 'Agent: applied the proposal proposal-1.');
  assert.equal(appliedMessage('proposal-1', { saved: ['hello.py', 'b.py'], unsaved: [], leftOut: [] }), 'Agent: applied the proposal proposal-1: saved hello.py, b.py.');
  assert.equal(appliedMessage('proposal-2', {
    saved: ['b.py'], unsaved: ['hello.py'], leftOut: [{ path: '.vscode/settings.json', why: 'editor configuration (VS Code tasks and settings)' }],
  }), 'Agent: applied the proposal proposal-2: saved b.py; left hello.py unsaved: it had unsaved changes before, which it keeps with the agent\'s (save it when ready); ' +
    'left out .vscode/settings.json (editor configuration (VS Code tasks and settings)).');
  assert.match(appliedMessage('proposal-3', { saved: [], unsaved: ['a', 'b'], leftOut: [] }), /left a, b unsaved: they had unsaved changes before, which they keep/);
});

test('appliedMessage counts the files where naming them would not show whole; Details names them', () => {
  const many = Array.from({ length: 12 }, (_, i) => ({ path: `.github/workflows/job-${i}.yml`, why: 'CI configuration (workflows run on push)' }));
  const report = { saved: ['greet.py', 'hello.py'], unsaved: [], leftOut: many };
  const message = appliedMessage('proposal-1', report);
  assert.ok(message.length <= noticeLimit, `${message.length} characters`);
  assert.equal(message, 'Agent: applied the proposal proposal-1: saved 2 files; left out 12 files of editor, agent or CI configuration (Details names each, with its reason).');
  const details = appliedDetails(report)!;
  for (const l of many) assert.ok(details.includes(`• ${l.path}: ${l.why}`), l.path);
  assert.match(details, /Changed and saved:\n• greet\.py\n• hello\.py$/);
});

test('appliedDetails lists what was left out or unsaved, one file a line; nothing when all was saved', () => {
  assert.equal(appliedDetails(undefined), undefined);
  assert.equal(appliedDetails({ saved: ['hello.py'], unsaved: [], leftOut: [] }), undefined);
  assert.equal(appliedDetails({
    saved: ['greet.py'], unsaved: ['hello.py'],
    leftOut: [{ path: '.vscode/settings.json', why: 'editor configuration (VS Code tasks and settings)' }, { path: 'AGENTS.md', why: 'the agent\'s instructions' }],
  }), 'Left out, not written (editor, agent or CI configuration you did not tick):\n' +
    '• .vscode/settings.json: editor configuration (VS Code tasks and settings)\n• AGENTS.md: the agent\'s instructions\n\n' +
    'Changed but left unsaved (they had unsaved changes of yours, kept with the agent\'s; save them when ready):\n• hello.py\n\n' +
    'Changed and saved:\n• greet.py');
});

test('a proposal not applied, or already settled, is said as it is', () => {
  assert.match(notAppliedMessage('proposal-1', 'VS Code did not apply the edit'), /proposal-1 was not applied \(VS Code did not apply the edit\); it stays pending: Apply or Discard it in its review/);
  assert.equal(alreadySettled('proposal-1', 'applied'), 'Agent: proposal-1 is already applied; nothing more to do.');
  assert.equal(alreadySettled('proposal-1', 'discarded'), 'Agent: proposal-1 was already discarded; no file was changed.');
  assert.match(alreadySettled('proposal-1', 'applying'), /being applied/);
  assert.equal(stillPending('proposal-1'), 'Agent: proposal-1 stays pending: Apply or Discard it from its review\'s title bar or the status bar.');
});

test('a refused apply is said in plain words, with where the pending proposal\'s choice stays', () => {
  assert.equal(refusedMessage('proposal-4 not applied: hello.py: the file changed where the agent wants to edit it: you edited line 2, which the agent changes too; ask again or discard the proposal', 'proposal-4'),
    'agent-lsp: proposal-4 not applied: hello.py: the file changed where the agent wants to edit it: you edited line 2, which the agent changes too; ask again or discard the proposal. ' +
    'proposal-4 stays pending: Apply or Discard it in its review (title bar or status bar).');
  assert.equal(refusedMessage('there is no pending proposal'), 'agent-lsp: there is no pending proposal.');
  assert.equal(refusedMessage('internal error.', 'proposal-1'), 'agent-lsp: internal error. proposal-1 stays pending: Apply or Discard it in its review (title bar or status bar).');
});

test('reviewMessage says what Apply does with sensitive files', () => {
  assert.equal(reviewMessage('proposal-1', 1, 0), 'Agent proposes changes to 1 file (proposal-1). Apply them?');
  assert.equal(reviewMessage('proposal-2', 3, 2),
    'Agent proposes changes to 3 files (proposal-2), 2 of them editor, agent or CI configuration: Apply leaves them out, "Apply with Sensitive Files…" lets you tick them. Apply?');
  assert.match(reviewMessage(undefined, 2, 1), /^Agent proposes changes to 2 files, 1 of them .*Apply leaves it out/);
});

test('the review says what the run-end review found: the check and the tests, first lines', () => {
  const status = { proposals: [
    { id: 'proposal-1', state: 'pending', check: 'Language server: no new errors (2 file(s) checked).', tests: 'Tests: the proposal breaks 1 test(s) that pass without it:\n  b: TestTwo (b/b_test.go:7)\n      b_test.go:7: Two() = 1, want 2\n      more\n      and more' },
    { id: 'proposal-2', state: 'pending' },
  ] };
  const v = verdictsOf(status, 'proposal-1');
  assert.deepEqual(v, ['Language server: no new errors (2 file(s) checked).',
    'Tests: the proposal breaks 1 test(s) that pass without it: b: TestTwo (b/b_test.go:7) b_test.go:7: Two() = 1, want 2 more …']);
  assert.deepEqual(verdictsOf(status, 'proposal-2'), []);
  assert.deepEqual(verdictsOf(undefined, 'proposal-1'), []);
  assert.equal(reviewMessage('proposal-1', 1, 0, ['Tests: 2 test(s) in 1 package pass with the proposal.']),
    'Agent proposes changes to 1 file (proposal-1). Tests: 2 test(s) in 1 package pass with the proposal. Apply them?');
  assert.match(reviewMessage('proposal-1', 2, 1, ['Tests: not run: budget.']), /lets you tick it\. Tests: not run: budget\. Apply\?$/);
});

test('sensitiveReason reads each file\'s own reason from its annotation id', () => {
  const annotations = {
    'agent-lsp': { label: 'agent-lsp: rename', description: 'Review the agent\'s changes before applying them.' },
    'agent-lsp.sensitive: editor configuration (VS Code tasks and settings)': { label: '⚠ agent-lsp: editor configuration (VS Code tasks and settings)' },
  };
  assert.equal(sensitiveReason('agent-lsp.sensitive: editor configuration (VS Code tasks and settings)', annotations), 'editor configuration (VS Code tasks and settings)');
  assert.equal(sensitiveReason('agent-lsp.sensitive: the agent\'s instructions', annotations), 'the agent\'s instructions');
  assert.equal(sensitiveReason('agent-lsp', annotations), undefined);
  assert.equal(sensitiveReason(undefined, annotations), undefined);
  // A server before per-kind annotations: one for all, its description the reasons.
  assert.equal(sensitiveReason('agent-lsp.sensitive', { 'agent-lsp.sensitive': { description: 'These files…' } }), 'These files…');
  assert.equal(sensitiveReason('agent-lsp.sensitive', {}), 'editor, agent or CI configuration');
});
