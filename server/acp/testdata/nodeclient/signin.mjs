// The sign-in through the real wire, with @agentclientprotocol/sdk (the
// official TypeScript ACP library, whose schemas check what we send), as a
// client that runs terminal sign-ins (auth.terminal, and Zed's and the ACP
// Registry's _meta "terminal-auth") sees it. Run by acp's
// TestSignInThroughTheTerminal in two phases around the terminal set-up,
// which the test drives in tmux:
//   before: initialize lists the terminal set-up (its args are written to
//           SETUP_ARGS_FILE for the test to run) and the key methods;
//           session/new answers auth_required (-32000);
//   after:  session/new opens, and a prompt is answered by the model the
//           set-up chose (the test's scripted server).
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import * as fs from 'node:fs';
import * as acp from '@agentclientprotocol/sdk';

const phase = process.argv[2];
const root = process.env.WORKSPACE;
const proc = spawn(process.env.AGENT_LSP_BIN, ['acp'], { cwd: root, env: process.env, stdio: ['pipe', 'pipe', 'inherit'] });
const stream = acp.ndJsonStream(Writable.toWeb(proc.stdin), Readable.toWeb(proc.stdout));
let answer = '';
const app = acp.client({ name: 'agent-lsp-signin-test' })
  .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: 'cancelled' } }))
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    if (params.update.sessionUpdate === 'agent_message_chunk') answer += params.update.content.text;
  });
const clientCapabilities = { auth: { terminal: true }, _meta: { 'terminal-auth': true } };

await app.connectWith(stream, async (agent) => {
  const init = await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities });
  const setup = init.authMethods.find((m) => m.type === 'terminal');
  assert.ok(setup, `no terminal sign-in in ${JSON.stringify(init.authMethods)}`);
  assert.equal(setup.id, 'agent-lsp-setup');
  assert.deepEqual(setup.args, ['setup']);
  assert.deepEqual(init.authMethods.map((m) => m.id), ['agent-lsp-setup', 'openai-api-key', 'gemini-api-key']);
  if (phase === 'before') {
    fs.writeFileSync(process.env.SETUP_ARGS_FILE, JSON.stringify(setup.args));
    await assert.rejects(agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] }), (err) => {
      assert.equal(err.code, -32000, `session/new: ${err.message}`);
      assert.match(err.message, /agent-lsp setup/);
      return true;
    });
    return;
  }
  const session = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
  const turn = await agent.request(acp.methods.agent.session.prompt, { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'say hello' }] });
  assert.equal(turn.stopReason, 'end_turn');
  // The library runs notification handlers as promise jobs: let them drain.
  await new Promise((resolve) => setImmediate(resolve));
  assert.match(answer, new RegExp(process.env.EXPECT_ANSWER));
});
proc.stdin.end();
const code = await new Promise((resolve) => proc.on('exit', resolve));
assert.equal(code, 0, 'agent-lsp acp exited with an error');
console.log(`signin ${phase}: ok`);
