import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyTextEdits, askArgs, proposalOfLabel, feedback, humanError, initializationOptions, meterText, serverCommand, serverSettingKeys, summary, tokens, withAgentCapabilities, withBOMOf } from '../args';

const sel = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

test('askArgs sends the selection, not an empty one', () => {
  assert.deepEqual(askArgs('  explain  ', 'file:///a.go', sel(1, 0, 3, 4)), { prompt: 'explain', uri: 'file:///a.go', range: sel(1, 0, 3, 4), wait: true });
  assert.deepEqual(askArgs('x', 'file:///a.go', sel(2, 5, 2, 5)), { prompt: 'x', uri: 'file:///a.go', wait: true });
  assert.deepEqual(askArgs('x'), { prompt: 'x', wait: true });
  assert.deepEqual(askArgs('explain', 'file:///a.go', undefined, 'ask'), { prompt: 'explain', uri: 'file:///a.go', mode: 'ask', wait: true });
});

test('initializationOptions keeps what is set and never a key', () => {
  const values: Record<string, unknown> = {
    provider: 'gemini', model: ' gemini-2.5-flash ', baseUrl: '', allowlist: ['npm test', ' ', 'make lint'], maxIterations: 12.7, apiKey: 'secret',
    noDefaultAllowlist: false, autoApply: null, checks: [], commandTimeoutS: 0, completion: { model: 'coder' }, mcp: null, strategy: 'plan',
  };
  const keys = ['provider', 'model', 'baseUrl', 'allowlist', 'maxIterations', 'noDefaultAllowlist', 'autoApply', 'checks', 'commandTimeoutS', 'completion', 'mcp', 'strategy'];
  const opts = initializationOptions({ get: <T>(k: string) => values[k] as T }, keys);
  assert.deepEqual(opts, {
    provider: 'gemini', model: 'gemini-2.5-flash', allowlist: ['npm test', 'make lint'], maxIterations: 12,
    noDefaultAllowlist: false, completion: { model: 'coder' }, strategy: 'plan',
  });
  assert.deepEqual(initializationOptions({ get: () => undefined }, keys), {});
});

test('summary counts files and reports failures', () => {
  const diff = '--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n--- /dev/null\n+++ b/b.go\n@@ -0,0 +1 @@\n+z\n';
  assert.equal(summary({ runId: 'run-1', proposalId: 'proposal-1', state: 'completed', answer: 'ok', diff }),
    'Agent proposes changes to 2 files (proposal-1): ok');
  assert.equal(summary({ runId: 'run-2', proposalId: 'proposal-2', state: 'completed', answer: 'It reads a file.\nMore.' }), 'Agent: It reads a file.');
  assert.equal(summary({ runId: 'run-3', proposalId: 'proposal-3', state: 'failed', answer: 'no model configured' }), 'Agent failed: no model configured');
  assert.equal(summary({ runId: 'run-6', proposalId: 'proposal-6', state: 'cancelled', answer: 'context canceled' }), 'Agent run cancelled.');
});

test('summary says how to keep the notes the agent wants to remember', () => {
  assert.equal(summary({ runId: 'run-4', proposalId: 'proposal-4', state: 'completed', answer: 'Noted.', notes: ['tests run with make check'] }),
    'Agent: Noted. The agent wants to remember 1 note (see the answer): keep them with "Agent: Keep the Agent\'s Notes".');
  const diff = '--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n';
  assert.match(summary({ runId: 'run-5', proposalId: 'proposal-5', state: 'completed', answer: 'ok', diff, notes: ['a', 'b'] }),
    /\(proposal-5\): ok The agent wants to remember 2 notes \(see the answer\): applying the changes keeps them/);
});

test('withAgentCapabilities declares the prompt box and keeps other experimental capabilities', () => {
  const caps: { experimental?: unknown } = { experimental: { other: 1 } };
  withAgentCapabilities(caps);
  assert.deepEqual(caps.experimental, { other: 1, agentLsp: { promptInput: true, userSettings: true, showsInlineEdits: true } });
  const empty: { experimental?: unknown } = {};
  withAgentCapabilities(empty);
  assert.deepEqual(empty.experimental, { agentLsp: { promptInput: true, userSettings: true, showsInlineEdits: true } });
});

test('serverCommand prefers the user\'s path, then the bundled binary, then PATH, then go install\'s', () => {
  assert.equal(serverCommand('/opt/agent-lsp', '/ext/bin/agent-lsp', true, '/home/u/go/bin/agent-lsp'), '/opt/agent-lsp');
  assert.equal(serverCommand('agent-lsp', '/ext/bin/agent-lsp', true, undefined), '/ext/bin/agent-lsp');
  assert.equal(serverCommand(undefined, undefined, true, '/home/u/go/bin/agent-lsp'), 'agent-lsp');
  assert.equal(serverCommand(undefined, undefined, false, '/home/u/go/bin/agent-lsp'), '/home/u/go/bin/agent-lsp');
  assert.equal(serverCommand('', undefined, false, undefined), 'agent-lsp');
});

test('serverSettingKeys is every declared setting but the client\'s own', () => {
  const manifest = { contributes: { configuration: { properties: { 'agent-lsp.path': {}, 'agent-lsp.model': {}, 'agent-lsp.mcp': {} } } } };
  assert.deepEqual(serverSettingKeys(manifest), ['model', 'mcp']);
  assert.deepEqual(serverSettingKeys({}), []);
});

test('humanError says what happened, not what Go or the client called it', () => {
  assert.equal(humanError('context canceled'), 'Agent run cancelled.');
  assert.equal(humanError('Request agent.ask failed: context canceled'), 'Agent run cancelled.');
  assert.match(humanError('Client is not running and can\'t be stopped.'), /server is not running/);
  assert.equal(humanError('no running run "run-9"'), 'no running run "run-9"');
});

test('every palette command says what it did', () => {
  assert.equal(feedback('agent.cancel', { cancelled: [] }), 'Agent: no run to cancel.');
  assert.equal(feedback('agent.cancel', { cancelled: ['run-2'] }), 'Agent: cancelling run-2.');
  assert.match(feedback('agent.newSession', { session: 's-3' }), /new session \(s-3\)/);
  assert.match(feedback('agent.discardProposal', { id: 'proposal-1', state: 'discarded' }), /discarded the proposal proposal-1; no file was changed/);
  assert.equal(feedback('agent.applyProposal', { id: 'proposal-1', applied: true }), 'Agent: applied the proposal proposal-1.');
  assert.match(feedback('agent.applyProposal', { id: 'proposal-1', applied: false, reason: 'declined' }), /not applied \(declined\); it stays pending/);
  assert.equal(feedback('agent.keepNotes', { id: 'run-1', kept: 2 }), 'Agent: kept 2 notes of run-1.');
});

test('applyTextEdits applies LSP edits against the original text', () => {
  const text = 'a\nbé😀c\nlast';
  const at = (l: number, c: number) => ({ line: l, character: c });
  assert.equal(applyTextEdits(text, [{ range: { start: at(1, 2), end: at(1, 4) }, newText: 'X' }]), 'a\nbéXc\nlast');
  assert.equal(applyTextEdits(text, [
    { range: { start: at(2, 0), end: at(2, 4) }, newText: 'end' },
    { range: { start: at(0, 0), end: at(1, 0) }, newText: '' },
  ]), 'bé😀c\nend');
  assert.equal(applyTextEdits('', [{ range: { start: at(0, 0), end: at(0, 0) }, newText: 'new\n' }]), 'new\n');
  assert.equal(applyTextEdits('x', [{ range: { start: at(0, 9), end: at(7, 0) }, newText: 'y' }]), 'xy');
  assert.throws(() => applyTextEdits('abc', [
    { range: { start: at(0, 0), end: at(0, 2) }, newText: '' },
    { range: { start: at(0, 1), end: at(0, 3) }, newText: '' },
  ]), /overlapping/);
});

test('proposalOfLabel names the proposal an edit carries', () => {
  assert.deepEqual(proposalOfLabel('agent-lsp: proposal-3: change the greeting'), { id: 'proposal-3', request: 'change the greeting' });
  assert.deepEqual(proposalOfLabel('agent-lsp: change the greeting'), { request: 'change the greeting' });
  assert.deepEqual(proposalOfLabel(undefined), { request: 'agent-lsp' });
});

test('the status bar shows the model and how full its context is', () => {
  assert.deepEqual([tokens(950), tokens(12_345), tokens(1_000_000)], ['950', '12k', '1.0M']);
  assert.equal(meterText({ model: 'gpt-test', context: { used: 12_345, size: 32_768 } }), '$(hubot) gpt-test · 12k/33k');
  assert.equal(meterText({ model: 'gpt-test' }), '$(hubot) gpt-test');
  assert.equal(meterText({}), '$(hubot) no model');
});

test('withBOMOf keeps a file\'s byte order mark when it is written whole, and adds none', () => {
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0x61]);
  assert.deepEqual([...withBOMOf(bom, 'b\n')], [0xef, 0xbb, 0xbf, 0x62, 0x0a]);
  assert.deepEqual([...withBOMOf(bom, '\uFEFFb')], [0xef, 0xbb, 0xbf, 0x62]);
  assert.deepEqual([...withBOMOf(new Uint8Array([0x61]), 'é')], [0xc3, 0xa9]);
  assert.deepEqual([...withBOMOf(new Uint8Array([]), '')], []);
});
