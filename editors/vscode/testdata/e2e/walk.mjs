// Walks a real VS Code (code-server in Debian's Chromium) as a user would,
// for editors/vscode/e2e_test.go, which starts code-server, the scripted
// model and checks the disk afterwards. WALK picks the walk; every step's
// screenshot is kept in SHOTS, which the Go test removes when all passed.
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const { URL: base, WORKSPACE: workspace, SHOTS: shots, WALK: walk, CHROMIUM: executablePath } = process.env;
const step = { n: 0, name: 'start' };

const browser = await chromium.launch({
  executablePath,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
try {
  const target = process.env.WORKSPACE_FILE ? `workspace=${encodeURIComponent(process.env.WORKSPACE_FILE)}` : `folder=${encodeURIComponent(workspace)}`;
  await page.goto(`${base}/?${target}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await ({ main: mainWalk, 'multi-root': multiRootWalk, 'missing-server': missingServerWalk })[walk]();
  await shot('done');
  console.log('walk ok');
} catch (err) {
  await shot(`failed-${step.name}`).catch(() => {});
  const shown = await page.locator('.notifications-toasts .notification-toast').allInnerTexts().catch(() => []);
  console.error(`notifications shown:\n${shown.map((t) => '- ' + t.replace(/\s+/g, ' ')).join('\n')}`);
  console.error(`walk failed at step ${step.n} (${step.name}): ${err.stack ?? err}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}

async function mainWalk() {
  await begin('open hello.py');
  await quickOpen('hello.py');
  await page.locator('.monaco-editor .view-lines', { hasText: 'Hello, World!' }).waitFor();

  await begin('ask');
  await palette('Agent: Ask…');
  await input('change the greeting');

  await begin('progress notification with Cancel');
  const progress = page.locator('.notifications-toasts .notification-toast', { has: page.locator('.monaco-button', { hasText: 'Cancel' }) }).first();
  await progress.waitFor({ timeout: 15_000 });
  await shot('progress');

  await begin('review: every file\'s diff, nothing written yet');
  const review = toast(/Agent proposes changes to 2 files, 1 of them editor, agent or CI configuration/);
  await review.waitFor({ timeout: 30_000 });
  await page.locator('.tab', { hasText: 'Agent proposal' }).waitFor();
  await page.locator('.multiDiffEditor, .multi-diff-editor, .monaco-component.multiDiffEditor').first().waitFor().catch(() => {});
  await shot('review');
  if (!disk('hello.py').includes('Hello, World!')) throw new Error('hello.py changed before Apply');

  await begin('apply, leaving the sensitive file unticked');
  await review.locator('.monaco-button', { hasText: 'Apply' }).click();
  const pick = page.locator('.quick-input-widget', { hasText: 'tick those to apply too' });
  await pick.waitFor();
  await pick.locator('.monaco-list-row', { hasText: 'settings.json' }).waitFor();
  await shot('sensitive-pick');
  await page.keyboard.press('Enter');
  await toast(/applied the proposal/).waitFor({ timeout: 15_000 });
  await until(() => disk('hello.py').includes('Hello, agent!'), 'hello.py saved with the change');
  if (disk('.vscode/settings.json') !== '{}\n') throw new Error('the sensitive file was applied unticked');
  await dismissToasts();

  await begin('code action menu');
  if ((await page.locator('.tab', { hasText: 'Agent proposal' }).count()) !== 0) throw new Error('the review stayed open after Apply');
  await page.locator('.tab', { hasText: 'hello.py' }).first().click();
  await page.locator('.monaco-editor .view-line', { hasText: 'Hello, agent!' }).first().click();
  await page.keyboard.press('Control+.');
  await page.locator('.action-widget', { hasText: 'Ask agent' }).waitFor();
  await shot('code-actions');
  await page.keyboard.press('Escape');

  await begin('explain');
  await palette('Agent: Explain Selection');
  // The answer opens as a document and the extension says its first line;
  // where VS Code fails to open the document, the server says it too.
  await toast(/It greets the world/).waitFor({ timeout: 30_000 });
  await dismissToasts();

  await begin('discard from the review');
  await palette('Agent: Ask…');
  await input('rename greet');
  const second = toast(/Agent proposes changes to 1 file\./);
  await second.waitFor({ timeout: 30_000 });
  await second.locator('.monaco-button', { hasText: 'Discard' }).click();
  await toast(/discarded the proposal proposal-3; no file was changed/).waitFor({ timeout: 15_000 });
  if (!disk('hello.py').includes('def greet')) throw new Error('a discarded proposal changed hello.py');
  await dismissToasts();

  await begin('cancel from the notification');
  await palette('Agent: Ask…');
  await input('wait for me');
  const slow = page.locator('.notifications-toasts .notification-toast', { has: page.locator('.monaco-button', { hasText: 'Cancel' }) }).first();
  await slow.waitFor({ timeout: 15_000 });
  await slow.locator('.monaco-button', { hasText: 'Cancel' }).click();
  await toast(/Agent run cancelled/).waitFor({ timeout: 15_000 });
  await shot('cancelled');
  await dismissToasts();

  await begin('every palette command says what it did');
  for (const [command, said] of [
    ['Agent: Cancel', /no run to cancel/],
    ['Agent: New Session', /started a new session/],
    // Every proposal is settled: both say there is none to act on.
    ['Agent: Apply Proposal', /agent-lsp: there is no pending proposal/],
    ['Agent: Discard Proposal', /agent-lsp: there is no pending proposal/],
    ['Agent: Keep the Agent\'s Notes', /agent-lsp: .*note/i],
  ]) {
    console.log(`  ${command}`);
    await palette(command);
    await toast(said).waitFor({ timeout: 10_000 });
    await dismissToasts();
  }
}

// A .code-workspace with two folders: a run asked from a file of the
// second edits it there, named by its folder.
async function multiRootWalk() {
  await begin('open a file of the second folder');
  await quickOpen('app.py');
  await page.locator('.monaco-editor .view-lines', { hasText: 'web app' }).waitFor();
  await begin('ask from it');
  await palette('Agent: Ask…');
  await input('retitle the web app');
  const review = toast(/Agent proposes changes to 1 file\./);
  await review.waitFor({ timeout: 30_000 });
  await shot('review');
  await review.locator('.monaco-button', { hasText: 'Apply' }).click();
  await toast(/applied the proposal/).waitFor({ timeout: 15_000 });
  await until(() => disk('web/app.py').includes('the web app, retitled'), 'web/app.py saved with the change');
}

async function missingServerWalk() {
  await begin('a server that cannot start says so once');
  const note = toast(/agent-lsp could not start its server: there is no program at \/nonexistent\/agent-lsp/);
  await note.waitFor({ timeout: 30_000 });
  await shot('cannot-start');
  const count = await page.locator('.notifications-toasts .notification-toast', { hasText: /could not start/ }).count();
  if (count !== 1) throw new Error(`${count} notifications about the server`);
  await begin('a command says the server is not running');
  await palette('Agent: New Session');
  await toast(/the server is not running/).waitFor();
  await begin('the button opens the setting');
  await note.locator('.monaco-button', { hasText: 'Open Setting' }).click();
  await page.locator('.settings-editor .setting-item-contents', { hasText: 'Path to the agent-lsp binary' }).first().waitFor();
}

// toast is the first notification saying text (a slow machine may show a
// second before the first is cleared).
function toast(text) {
  return page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
}

// dismissToasts clears the notifications as a user would, through the
// palette: hovering a toast races its own fading out.
async function dismissToasts() {
  await palette('Notifications: Clear All Notifications');
  await until(async () => (await page.locator('.notifications-toasts .notification-toast').count()) === 0, 'notifications cleared');
}

async function palette(command) {
  await page.keyboard.press('F1');
  const box = page.locator('.quick-input-widget input');
  await box.waitFor();
  await box.fill('>' + command);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: command }).first().waitFor();
  await page.keyboard.press('Enter');
}

async function quickOpen(file) {
  await page.keyboard.press('Control+P');
  const box = page.locator('.quick-input-widget input');
  await box.waitFor();
  await box.fill(file);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: file }).first().waitFor();
  await page.keyboard.press('Enter');
}

async function input(text) {
  const box = page.locator('.quick-input-widget input');
  await page.locator('.quick-input-widget', { hasText: 'Ask the agent' }).waitFor();
  await box.fill(text);
  await page.keyboard.press('Enter');
}

function disk(rel) {
  return readFileSync(join(workspace, rel), 'utf8');
}

async function until(ok, what) {
  for (let i = 0; i < 100; i++) {
    if (await ok()) return;
    await page.waitForTimeout(100);
  }
  throw new Error(`not so after 10 s: ${what}`);
}

async function begin(name) {
  if (step.n > 0) await shot(step.name);
  step.n++;
  step.name = name;
  console.log(`step ${step.n}: ${name}`);
}

async function shot(name) {
  const file = `${String(step.n).padStart(2, '0')}-${name.replace(/[^a-z0-9]+/gi, '-')}.png`;
  await page.screenshot({ path: join(shots, file) });
}
