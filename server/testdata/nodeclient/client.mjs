// Drives the real agent-lsp binary with vscode-languageserver-protocol, as VS
// Code's client would: VS Code's capabilities, a code action, agent.ask on an
// unsaved buffer, the annotated workspace/applyEdit, an inline completion, a cancelled request
// (-32800), then shutdown and exit 0. Run by server's TestNodeClient, which
// provides the binary and a scripted model server through the environment.
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import * as path from 'node:path';
import * as lsp from 'vscode-languageserver-protocol/node.js';

const root = process.env.WORKSPACE;
const bin = process.env.AGENT_LSP_BIN;
const proc = spawn(bin, ['serve'], { env: process.env, stdio: ['pipe', 'pipe', 'inherit'] });
const exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
const conn = lsp.createProtocolConnection(new lsp.StreamMessageReader(proc.stdout), new lsp.StreamMessageWriter(proc.stdin));

let editResolve;
const editArrived = new Promise((resolve) => { editResolve = resolve; });
const progressEnds = new Map();
conn.onRequest(lsp.ApplyWorkspaceEditRequest.type, (params) => { editResolve(params); return { applied: true }; });
conn.onRequest(lsp.WorkDoneProgressCreateRequest.type, () => null);
conn.onRequest(lsp.ShowDocumentRequest.type, () => ({ success: true }));
conn.onNotification(lsp.LogMessageNotification.type, () => {});
conn.onNotification(lsp.ShowMessageNotification.type, () => {});
conn.onProgress(lsp.WorkDoneProgress.type, 'agent-lsp/run-1', (v) => { if (v.kind === 'end') progressEnds.set('run-1', v.message); });
conn.listen();

const rootUri = pathToFileURL(root).href;
const init = await conn.sendRequest(lsp.InitializeRequest.type, {
  processId: process.pid,
  rootUri,
  workspaceFolders: [{ uri: rootUri, name: 'ws' }],
  capabilities: {
    general: { positionEncodings: ['utf-16'] },
    workspace: {
      applyEdit: true,
      workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'], changeAnnotationSupport: { groupsOnLabel: true } },
    },
    window: { workDoneProgress: true, showDocument: { support: true } },
    textDocument: { inlineCompletion: { dynamicRegistration: false } },
  },
});
assert.equal(init.capabilities.positionEncoding, 'utf-16');
assert.ok(init.capabilities.executeCommandProvider.commands.includes('agent.ask'));
assert.deepEqual(init.capabilities.codeActionProvider.codeActionKinds, ['quickfix', 'refactor.rewrite', 'source']);
await conn.sendNotification(lsp.InitializedNotification.type, {});

const uri = pathToFileURL(path.join(root, 'hello.py')).href;
const unsaved = 'def greet():\n    return "Hello from the buffer"  # 🐍\n';
await conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'python', version: 1, text: unsaved } });

const actions = await conn.sendRequest(lsp.CodeActionRequest.type, {
  textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } }, context: { diagnostics: [] },
});
const titles = actions.map((a) => a.title);
assert.ok(titles.includes('Explain with agent'), titles.join(', '));
// This client declares no prompt box: "Ask agent…" inserts an instruction comment.
const askAction = actions.find((a) => a.title.startsWith('Ask agent…'));
assert.equal(askAction.edit.documentChanges[0].edits[0].newText, '# AGENT: \n');

const started = await conn.sendRequest(lsp.ExecuteCommandRequest.type, { command: 'agent.ask', arguments: [{ prompt: 'change the greeting', uri }] });
assert.equal(started.runId, 'run-1');
const edit = await editArrived;
const change = edit.edit.documentChanges[0];
assert.equal(change.textDocument.version, 1);
assert.equal(change.edits.length, 1);
assert.equal(change.edits[0].annotationId, 'agent-lsp');
assert.deepEqual(change.edits[0].range, { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } });
assert.equal(change.edits[0].newText, '    return "Hello from the agent"  # 🐍\n');
assert.equal(edit.edit.changeAnnotations['agent-lsp'].needsConfirmation, true);

// Inline completion (LSP 3.18, proposed in this library): ghost text after
// "    ret" in an unsaved buffer, at the cursor.
assert.equal(init.capabilities.inlineCompletionProvider, true);
const draftUri = pathToFileURL(path.join(root, 'draft.py')).href;
await conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, { textDocument: { uri: draftUri, languageId: 'python', version: 1, text: 'def total(xs):\n    ret\n' } });
const inline = await conn.sendRequest(lsp.InlineCompletionRequest.type, {
  textDocument: { uri: draftUri }, position: { line: 1, character: 7 }, context: { triggerKind: lsp.InlineCompletionTriggerKind.Automatic },
});
assert.deepEqual(inline.items, [{ insertText: 'urn sum(xs)', range: { start: { line: 1, character: 7 }, end: { line: 1, character: 7 } } }]);

// A request cancelled by the client answers RequestCancelled (-32800).
const source = new lsp.CancellationTokenSource();
const slow = conn.sendRequest(lsp.ExecuteCommandRequest.type, { command: 'agent.ask', arguments: [{ prompt: 'take your time', wait: true, session: (await conn.sendRequest(lsp.ExecuteCommandRequest.type, { command: 'agent.newSession' })).session }] }, source.token);
setTimeout(() => source.cancel(), 300);
await assert.rejects(slow, (err) => err.code === lsp.LSPErrorCodes.RequestCancelled);

await conn.sendRequest(lsp.ShutdownRequest.type);
await conn.sendNotification(lsp.ExitNotification.type);
assert.equal(await exited, 0);
console.log('node client: all checks passed');
process.exit(0);
