// Drives the real `agent-lsp acp` binary with @agentclientprotocol/sdk, the
// official TypeScript ACP library (its zod schemas check every message we
// send): initialize, a prompt turn with an embedded unsaved buffer, reads
// through fs/read_text_file, an edit shown as a diff, the proposal accepted
// through session/request_permission and written with fs/write_text_file,
// set_mode, an unknown method, session/cancel answered "cancelled", then a
// second process loading the session and replaying it. Clients append
// message and thought chunks, so every turn's answer and reasoning must
// arrive exactly once: streamed (with text before and after tool calls),
// and whole from a model that does not stream (a second session in a
// workspace whose model speaks the JSON tool protocol), live and replayed.
// Run by acp's TestNodeClient, which provides the binary and a scripted
// model server through the environment.
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import * as path from 'node:path';
import * as fs from 'node:fs';
import * as acp from '@agentclientprotocol/sdk';

const root = process.env.WORKSPACE;
const bin = process.env.AGENT_LSP_BIN;
const hello = path.join(root, 'hello.py');
const wholeRoot = path.join(root, 'whole');
const unsaved = 'def greet():\n    return "Hello from the buffer"  # 🐍\n';

// One editor: its buffers, what it was sent and what it was asked.
const buffers = new Map([[hello, unsaved]]);
const reads = [];
const writes = new Map();
const asked = [];
let updates = [];

function start() {
  const proc = spawn(bin, ['acp'], { env: process.env, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
  const stream = acp.ndJsonStream(Writable.toWeb(proc.stdin), Readable.toWeb(proc.stdout));
  const app = acp.client({ name: 'agent-lsp-node-test' })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      reads.push(params.path);
      if (buffers.has(params.path)) return { content: buffers.get(params.path) };
      return { content: fs.readFileSync(params.path, 'utf8') };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      writes.set(params.path, params.content);
      buffers.set(params.path, params.content);
      return {};
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      asked.push(params);
      const allow = params.options.find((o) => o.kind === 'allow_once');
      return { outcome: { outcome: 'selected', optionId: allow.optionId } };
    })
    .onNotification(acp.methods.client.session.update, ({ params }) => { updates.push(params.update); });
  return { proc, exited, stream, app };
}

// terminal_output: the client shows a command's output as a display-only
// terminal fed through _meta (Zed's; claude-agent-acp and codex-acp send it).
const clientCapabilities = { fs: { readTextFile: true, writeTextFile: true }, _meta: { terminal_output: true } };

// What a client shows as the agent's answer and as its thoughts: the
// chunks appended (below the full sandbox level, the first turn of a
// session opens with the level's note, which is not the answer).
const note = /^agent-lsp: commands run in the sandbox at level [^\n]*\n\n/;
const shown = (kind) => updates.filter((u) => u.sessionUpdate === kind).map((u) => u.content.text).join('');
const answerShown = () => shown('agent_message_chunk').replace(note, '');
const timesIn = (text, part) => text.split(part).length - 1;
// The library hands a response over before it has run the handlers of the
// notifications read before it; those run as promise jobs, so all of them
// have run once the jobs queued now have drained.
const settled = () => new Promise((resolve) => setImmediate(resolve));

// First process: a whole turn, modes, an unknown method, a cancel.
let wholeSession;
const first = start();
const sessionId = await first.app.connectWith(first.stream, async (agent) => {
  const init = await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities });
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentCapabilities.loadSession, true);
  assert.equal(init.agentCapabilities.promptCapabilities.embeddedContext, true);
  assert.equal(init.agentCapabilities.promptCapabilities.image, true);
  // No terminal sign-in for a client that runs none: the keys agent-lsp reads.
  assert.deepEqual(init.authMethods.map((m) => m.id), ['openai-api-key', 'gemini-api-key']);
  assert.deepEqual(init.agentCapabilities.sessionCapabilities.delete, {});

  const session = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
  assert.deepEqual(session.modes.availableModes.map((m) => m.id), ['ask', 'code', 'plan']);
  assert.equal(session.modes.currentModeId, 'code');
  // The pickers: mode, model (what the server lists) and thinking.
  assert.deepEqual(session.configOptions.map((o) => [o.id, o.category, o.currentValue]),
    [['mode', 'mode', 'code'], ['model', 'model', 'gpt-test'], ['thinking', 'thought_level', 'default']]);
  assert.deepEqual(session.configOptions[1].options.map((o) => o.value), ['gpt-other', 'gpt-test']);
  // The "/" menu arrives once the client knows the session.
  await until(() => updates.some((u) => u.sessionUpdate === 'available_commands_update'));
  const menu = updates.find((u) => u.sessionUpdate === 'available_commands_update').availableCommands.map((c) => c.name);
  for (const name of ['ask', 'code', 'plan', 'new', 'compact', 'notes', 'forget']) assert.ok(menu.includes(name), `"/${name}" missing from ${menu}`);
  updates = [];

  const turn = await agent.request(acp.methods.agent.session.prompt, {
    sessionId: session.sessionId,
    messageId: '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f',
    prompt: [
      { type: 'text', text: 'Change the greeting in ' },
      { type: 'resource', resource: { uri: pathToFileURL(hello).href, text: unsaved, mimeType: 'text/x-python' } },
    ],
  });
  assert.equal(turn.stopReason, 'end_turn');
  assert.equal(turn.userMessageId, '6f1c2a4e-8d3b-4c5a-9e7f-0a1b2c3d4e5f');
  await settled();
  // The thread is titled by its first turn; each message's chunks share an id.
  assert.deepEqual(updates.filter((u) => u.sessionUpdate === 'session_info_update').map((u) => u.title), ['Change the greeting in']);
  const chunks = updates.filter((u) => u.sessionUpdate === 'agent_message_chunk');
  assert.ok(chunks.every((c) => /^[0-9a-f-]{36}$/.test(c.messageId)), JSON.stringify(chunks));
  const byMessage = new Map();
  for (const c of chunks) byMessage.set(c.messageId, (byMessage.get(c.messageId) ?? '') + c.content.text);
  // The answer, then what the run-end tests say of the change.
  assert.ok([...byMessage.values()].some((m) => m.startsWith('Changed the greeting.\n\nTests: ')), JSON.stringify([...byMessage.values()]));
  assert.ok(reads.includes(hello), `fs/read_text_file was not asked for hello.py: ${reads}`);
  const started = updates.filter((u) => u.sessionUpdate === 'tool_call');
  const read = started.find((u) => u.kind === 'read');
  assert.equal(read.title, 'Read hello.py');
  assert.equal(read.locations[0].path, hello);
  const edit = started.find((u) => u.kind === 'edit' && u.title === 'Edit hello.py');
  const editDone = updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === edit.toolCallId && u.status === 'completed');
  const diff = editDone.content.find((c) => c.type === 'diff');
  assert.equal(diff.path, hello);
  assert.equal(diff.oldText, unsaved);
  assert.match(diff.newText, /Hello from the agent/);
  // Streamed: the text before the tools and the answer after them, each
  // once, then what the run-end tests say; the reasoning in the thoughts
  // once, never in the answer.
  assert.match(answerShown(), /^Reading it first\. Changed the greeting\.\n\nTests: not run: [^\n]+$/);
  assert.equal(timesIn(shown('agent_thought_chunk'), 'Deciding what to say.'), 1, `reasoning in the thoughts: ${JSON.stringify(shown('agent_thought_chunk'))}`);
  // The context meter after each of the turn's three model calls.
  const meters = updates.filter((u) => u.sessionUpdate === 'usage_update');
  assert.equal(meters.length, 3, JSON.stringify(meters));
  assert.ok(meters.every((m) => m.size === 32768 && m.used > 0 && m.cost === undefined), JSON.stringify(meters));
  assert.equal(asked.length, 1);
  assert.equal(asked[0].options[0].kind, 'reject_once', 'the safe option comes first');
  assert.equal(writes.get(hello), 'def greet():\n    return "Hello from the agent"  # 🐍\n');
  assert.equal(fs.readFileSync(hello, 'utf8'), 'def greet():\n    return "Hello from disk"\n', 'the agent wrote to disk behind the editor');

  // Not streamed: a model on the JSON tool protocol answers whole, and
  // its answer and reasoning are sent whole, once.
  updates = [];
  const whole = await agent.request(acp.methods.agent.session.new, { cwd: wholeRoot, mcpServers: [] });
  // With a pasted image, which this model (no vision) does not get: the user is told.
  const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4DwAAAQEABRjYTgAAAABJRU5ErkJggg==';
  const wholeTurn = await agent.request(acp.methods.agent.session.prompt, { sessionId: whole.sessionId,
    prompt: [{ type: 'text', text: 'Say it whole' }, { type: 'image', mimeType: 'image/png', data: pixel }] });
  assert.equal(wholeTurn.stopReason, 'end_turn');
  await settled();
  const noVision = /^agent-lsp: gpt-test does not take images, so the 1 attached were left out[^\n]*\n\n/;
  assert.match(answerShown(), noVision);
  assert.equal(answerShown().replace(noVision, ''), 'Answered whole.');
  assert.equal(timesIn(shown('agent_thought_chunk'), 'Weighing it whole.'), 1, `reasoning in the thoughts: ${JSON.stringify(shown('agent_thought_chunk'))}`);
  wholeSession = whole.sessionId;

  // A command's output streams while it runs, to the display-only terminal.
  updates = [];
  const ran = await agent.request(acp.methods.agent.session.prompt, { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'run the echo' }] });
  assert.equal(ran.stopReason, 'end_turn');
  await settled();
  const run = updates.find((u) => u.sessionUpdate === 'tool_call' && u.kind === 'execute');
  assert.deepEqual(run.content, [{ type: 'terminal', terminalId: run.toolCallId }]);
  assert.equal(run._meta.terminal_info.terminal_id, run.toolCallId);
  const runUpdates = updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === run.toolCallId);
  const fed = runUpdates.map((u) => u._meta?.terminal_output?.data ?? '').join('');
  assert.equal(fed, 'streamed\ndone\n');
  const firstFeed = runUpdates.findIndex((u) => u._meta?.terminal_output);
  const ended = runUpdates.findIndex((u) => u.status === 'completed');
  assert.ok(firstFeed >= 0 && firstFeed < ended, 'the output came before the end');
  assert.equal(runUpdates[ended]._meta.terminal_exit.exit_code, 0);
  // The model's checklist is the plan, in any mode.
  const plan = updates.find((u) => u.sessionUpdate === 'plan');
  assert.deepEqual(plan.entries.map((e) => [e.content, e.status]), [['Run the echo', 'in_progress'], ['Report', 'pending']]);
  await agent.request(acp.methods.agent.session.setMode, { sessionId: session.sessionId, modeId: 'ask' });
  // A config option set applies from the next turn and is announced; one
  // the agent does not offer is an invalid-params error.
  updates = [];
  const set = await agent.request(acp.methods.agent.session.setConfigOption, { sessionId: session.sessionId, configId: 'thinking', value: 'low' });
  assert.equal(set.configOptions.find((o) => o.id === 'thinking').currentValue, 'low');
  assert.equal(set.configOptions.find((o) => o.id === 'mode').currentValue, 'ask');
  await assert.rejects(agent.request(acp.methods.agent.session.setConfigOption, { sessionId: session.sessionId, configId: 'temperature', value: '1' }),
    (err) => err.code === -32602 && /unknown config option/.test(JSON.stringify(err.data)));
  // "/notes" answers without a model call.
  const notes = await agent.request(acp.methods.agent.session.prompt, { sessionId: session.sessionId, prompt: [{ type: 'text', text: '/notes' }] });
  assert.equal(notes.stopReason, 'end_turn');
  await settled();
  assert.match(shown('agent_message_chunk'), /No notes yet/);
  assert.ok(updates.some((u) => u.sessionUpdate === 'config_option_update'));
  await assert.rejects(agent.request('no/such_method', {}), (err) => err.code === -32601);

  // A turn that hangs on the model is cancelled at once.
  updates = [];
  const pending = agent.request(acp.methods.agent.session.prompt, { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'think long' }] });
  await waitForModelCall();
  const sent = performance.now();
  await agent.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
  const cancelled = await pending;
  const took = performance.now() - sent;
  assert.equal(cancelled.stopReason, 'cancelled');
  assert.ok(took < 500, `cancel took ${took} ms`);
  console.log(`cancel answered in ${took.toFixed(1)} ms`);
  return session.sessionId;
});
first.proc.stdin.end();
assert.equal(await first.exited, 0);

// Second process: the session loads and replays.
updates = [];
const second = start();
await second.app.connectWith(second.stream, async (agent) => {
  await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities });
  const list = await agent.request(acp.methods.agent.session.list, { cwd: root });
  assert.ok(list.sessions.some((s) => s.sessionId === sessionId), JSON.stringify(list));
  const loaded = await agent.request(acp.methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
  assert.equal(loaded.modes.currentModeId, 'code');
  // The replay is sent before the answer; the library may hand the answer
  // over before it has dispatched every notification read with it.
  const replayed = () => updates.filter((u) => ['user_message_chunk', 'agent_message_chunk', 'tool_call'].includes(u.sessionUpdate));
  await until(() => replayed().length >= 9);
  const replay = replayed().map((u) => [u.sessionUpdate, u.content?.text ?? u.title]);
  assert.deepEqual(replay.slice(1), [
    ['agent_message_chunk', 'Reading it first. '],
    ['tool_call', 'Read hello.py'],
    ['tool_call', 'Edit hello.py'],
    ['agent_message_chunk', 'Changed the greeting.'],
    ['user_message_chunk', 'run the echo'],
    ['tool_call', 'Run `echo streamed; sleep 0.3; echo done`'],
    ['agent_message_chunk', 'Ran it.'],
    ['user_message_chunk', 'think long'],
  ]);
  assert.match(replay[0][1], /^Change the greeting in/);
  // Replayed, each answer is there once too, and no reasoning is in it.
  assert.equal(answerShown(), 'Reading it first. Changed the greeting.Ran it.');

  updates = [];
  await agent.request(acp.methods.agent.session.load, { sessionId: wholeSession, cwd: wholeRoot, mcpServers: [] });
  await until(() => replayed().length >= 2);
  assert.deepEqual(replayed().map((u) => [u.sessionUpdate, u.content?.text]), [
    ['user_message_chunk', 'Say it whole\n\n(The user attached 1 image(s), which were left out: the model in use cannot see images.)'],
    ['agent_message_chunk', 'Answered whole.'],
  ]);

  // session/delete removes it from the list; it can no longer be loaded.
  await agent.request(acp.methods.agent.session.delete, { sessionId: wholeSession });
  const after = await agent.request(acp.methods.agent.session.list, { cwd: wholeRoot });
  assert.ok(!after.sessions.some((s) => s.sessionId === wholeSession), JSON.stringify(after));
  await assert.rejects(agent.request(acp.methods.agent.session.load, { sessionId: wholeSession, cwd: wholeRoot, mcpServers: [] }), (err) => err.code === -32602);
  await assert.rejects(agent.request(acp.methods.agent.session.delete, { sessionId: 'no-such-session' }), (err) => err.code === -32602);
});
second.proc.stdin.end();
assert.equal(await second.exited, 0);
console.log('ok');

async function until(cond) {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(cond(), 'timed out');
}

// The model server counts requests in a file the Go test names.
async function waitForModelCall() {
  const file = process.env.MODEL_CALLS_FILE;
  for (let i = 0; i < 2000; i++) {
    if (fs.existsSync(file) && Number(fs.readFileSync(file, 'utf8')) >= Number(process.env.MODEL_CALLS)) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('the model was never called for the turn to cancel');
}
