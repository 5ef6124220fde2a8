import { test } from 'node:test';
import assert from 'node:assert/strict';
import { askArgs, initializationOptions, serverCommand, summary, withAgentCapabilities } from '../args';

const sel = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

test('askArgs sends the selection, not an empty one', () => {
  assert.deepEqual(askArgs('  explain  ', 'file:///a.go', sel(1, 0, 3, 4)), { prompt: 'explain', uri: 'file:///a.go', range: sel(1, 0, 3, 4), wait: true });
  assert.deepEqual(askArgs('x', 'file:///a.go', sel(2, 5, 2, 5)), { prompt: 'x', uri: 'file:///a.go', wait: true });
  assert.deepEqual(askArgs('x'), { prompt: 'x', wait: true });
});

test('initializationOptions keeps what is set and never a key', () => {
  const values: Record<string, unknown> = { provider: 'gemini', model: ' gemini-2.5-flash ', baseUrl: '', allowlist: ['npm test', ' ', 'make lint'], maxIterations: 12.7, apiKey: 'secret' };
  const opts = initializationOptions({ get: <T>(k: string) => values[k] as T });
  assert.deepEqual(opts, { provider: 'gemini', model: 'gemini-2.5-flash', allowlist: ['npm test', 'make lint'], maxIterations: 12 });
  assert.deepEqual(initializationOptions({ get: () => undefined }), {});
});

test('summary counts files and reports failures', () => {
  const diff = '--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n--- /dev/null\n+++ b/b.go\n@@ -0,0 +1 @@\n+z\n';
  assert.equal(summary({ runId: 'run-1', proposalId: 'proposal-1', state: 'completed', answer: 'ok', diff }),
    'Agent proposes changes to 2 files (proposal-1): review them in the preview.');
  assert.equal(summary({ runId: 'run-2', proposalId: 'proposal-2', state: 'completed', answer: 'It reads a file.\nMore.' }), 'Agent: It reads a file.');
  assert.equal(summary({ runId: 'run-3', proposalId: 'proposal-3', state: 'failed', answer: 'no model configured' }), 'Agent failed: no model configured');
});

test('summary says how to keep the notes the agent wants to remember', () => {
  assert.equal(summary({ runId: 'run-4', proposalId: 'proposal-4', state: 'completed', answer: 'Noted.', notes: ['tests run with make check'] }),
    'Agent: Noted. The agent wants to remember 1 note (see the answer): keep them with "Agent: Keep the Agent\'s Notes".');
  const diff = '--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n';
  assert.match(summary({ runId: 'run-5', proposalId: 'proposal-5', state: 'completed', answer: 'ok', diff, notes: ['a', 'b'] }),
    /review them in the preview\. The agent wants to remember 2 notes \(see the answer\): applying the changes keeps them/);
});

test('withAgentCapabilities declares the prompt box and keeps other experimental capabilities', () => {
  const caps: { experimental?: unknown } = { experimental: { other: 1 } };
  withAgentCapabilities(caps);
  assert.deepEqual(caps.experimental, { other: 1, agentLsp: { promptInput: true, userSettings: true } });
  const empty: { experimental?: unknown } = {};
  withAgentCapabilities(empty);
  assert.deepEqual(empty.experimental, { agentLsp: { promptInput: true, userSettings: true } });
});

test('serverCommand prefers the user\'s path, then the bundled binary, then PATH, then go install\'s', () => {
  assert.equal(serverCommand('/opt/agent-lsp', '/ext/bin/agent-lsp', true, '/home/u/go/bin/agent-lsp'), '/opt/agent-lsp');
  assert.equal(serverCommand('agent-lsp', '/ext/bin/agent-lsp', true, undefined), '/ext/bin/agent-lsp');
  assert.equal(serverCommand(undefined, undefined, true, '/home/u/go/bin/agent-lsp'), 'agent-lsp');
  assert.equal(serverCommand(undefined, undefined, false, '/home/u/go/bin/agent-lsp'), '/home/u/go/bin/agent-lsp');
  assert.equal(serverCommand('', undefined, false, undefined), 'agent-lsp');
});
