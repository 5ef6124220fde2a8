"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const args_1 = require("../args");
const sel = (l1, c1, l2, c2) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });
(0, node_test_1.test)('askArgs sends the selection, not an empty one', () => {
    strict_1.default.deepEqual((0, args_1.askArgs)('  explain  ', 'file:///a.go', sel(1, 0, 3, 4)), { prompt: 'explain', uri: 'file:///a.go', range: sel(1, 0, 3, 4), wait: true });
    strict_1.default.deepEqual((0, args_1.askArgs)('x', 'file:///a.go', sel(2, 5, 2, 5)), { prompt: 'x', uri: 'file:///a.go', wait: true });
    strict_1.default.deepEqual((0, args_1.askArgs)('x'), { prompt: 'x', wait: true });
});
(0, node_test_1.test)('initializationOptions keeps what is set and never a key', () => {
    const values = { provider: 'gemini', model: ' gemini-2.5-flash ', baseUrl: '', allowlist: ['npm test', ' ', 'make lint'], maxIterations: 12.7, apiKey: 'secret' };
    const opts = (0, args_1.initializationOptions)({ get: (k) => values[k] });
    strict_1.default.deepEqual(opts, { provider: 'gemini', model: 'gemini-2.5-flash', allowlist: ['npm test', 'make lint'], maxIterations: 12 });
    strict_1.default.deepEqual((0, args_1.initializationOptions)({ get: () => undefined }), {});
});
(0, node_test_1.test)('summary counts files and reports failures', () => {
    const diff = '--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n--- /dev/null\n+++ b/b.go\n@@ -0,0 +1 @@\n+z\n';
    strict_1.default.equal((0, args_1.summary)({ runId: 'run-1', proposalId: 'proposal-1', state: 'completed', answer: 'ok', diff }), 'Agent proposes changes to 2 files (proposal-1): review them in the preview.');
    strict_1.default.equal((0, args_1.summary)({ runId: 'run-2', proposalId: 'proposal-2', state: 'completed', answer: 'It reads a file.\nMore.' }), 'Agent: It reads a file.');
    strict_1.default.equal((0, args_1.summary)({ runId: 'run-3', proposalId: 'proposal-3', state: 'failed', answer: 'no model configured' }), 'Agent failed: no model configured');
});
(0, node_test_1.test)('summary says how to keep the notes the agent wants to remember', () => {
    strict_1.default.equal((0, args_1.summary)({ runId: 'run-4', proposalId: 'proposal-4', state: 'completed', answer: 'Noted.', notes: ['tests run with make check'] }), 'Agent: Noted. The agent wants to remember 1 note (see the answer): keep them with "Agent: Keep the Agent\'s Notes".');
    const diff = '--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n';
    strict_1.default.match((0, args_1.summary)({ runId: 'run-5', proposalId: 'proposal-5', state: 'completed', answer: 'ok', diff, notes: ['a', 'b'] }), /review them in the preview\. The agent wants to remember 2 notes \(see the answer\): applying the changes keeps them/);
});
//# sourceMappingURL=args.test.js.map