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
  await ({ 'new-files': newFilesWalk, main: mainWalk, 'multi-root': multiRootWalk, 'missing-server': missingServerWalk })[walk]();
  await shot('done');
  console.log('walk ok');
} catch (err) {
  await shot(`failed-${step.name}`).catch(() => {});
  const shown = await page.locator('.notifications-toasts .notification-toast').allInnerTexts().catch(() => []);
  console.error(`notifications shown:\n${shown.map((t) => '- ' + t.replace(/\s+/g, ' ')).join('\n')}`);
  await palette('Notifications: Show Notifications').catch(() => {});
  const all = await page.locator('.notifications-center .notification-list-item').allInnerTexts().catch(() => []);
  console.error(`notification center:\n${all.map((t) => '- ' + t.replace(/\s+/g, ' ')).join('\n')}`);
  console.error(`walk failed at step ${step.n} (${step.name}): ${err.stack ?? err}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}

// A proposal that creates a package of new files and edits a file no editor
// shows, applied from the review's title bar: the user's editor comes back
// to the front, and none of those files opens.
async function newFilesWalk() {
  const n = Number(process.env.NEW_FILES);
  await begin('open hello.py');
  await quickOpen('hello.py');
  await page.locator('.monaco-editor .view-lines', { hasText: 'Hello, World!' }).waitFor();
  await begin('ask');
  await palette('Agent: Ask…');
  await input('add the parts');
  await toast(new RegExp(`Agent proposes changes to ${n + 1} files \\(proposal-1\\)\\.`)).waitFor({ timeout: 60_000 });
  await reviewTab('proposal-1').waitFor();
  await begin('apply from the title bar');
  await titleButton('Apply').click();
  await toast(/applied the proposal proposal-1: saved /).waitFor({ timeout: 30_000 });
  await gone(reviewTab('proposal-1'), 'the review closed after Apply');
  await until(() => disk('parts/__init__.py').includes('list(range'), 'parts/__init__.py written with the change');
  await userEditorInFront('hello.py', /part_\d+\.py|__init__\.py/);
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
  const review = toast(/Agent proposes changes to 4 files \(proposal-1\), 2 of them editor, agent or CI configuration: Apply leaves them out/);
  await review.waitFor({ timeout: 30_000 });
  await reviewTab('proposal-1').waitFor();
  await page.locator('.multiDiffEditor, .multi-diff-editor, .monaco-component.multiDiffEditor').first().waitFor().catch(() => {});
  if (!disk('hello.py').includes('Hello, World!')) throw new Error('hello.py changed before Apply');

  await begin('the review carries its choice: title bar and status bar');
  for (const name of ['Apply', 'Apply with Sensitive Files…', 'Discard']) await titleButton(name).waitFor();
  const choice = statusItem('proposal-1');
  await choice.waitFor();
  await shot('review');

  await begin('the status bar shows the session\'s model and how full its context was');
  await page.locator('.statusbar-item', { hasText: /gpt-remote-settings · \d[\d.]*k?\/\d/ }).first().waitFor({ timeout: 15_000 });

  await begin('the choice is still there after the notification hid itself');
  await page.waitForTimeout(11_000);
  console.log(`  after 11 s the notification is ${(await review.isVisible()) ? 'still shown' : 'hidden'}`);
  await titleButton('Apply with Sensitive Files…').click();

  await begin('each sensitive file says its own reason');
  const pick = page.locator('.quick-input-widget', { hasText: 'tick those to apply too' });
  await pick.waitFor();
  const rows = { '.vscode/settings.json': 'editor configuration (VS Code tasks and settings)', 'AGENTS.md': 'the agent\'s instructions' };
  for (const [file, why] of Object.entries(rows)) {
    const row = pick.locator('.monaco-list-row', { hasText: file });
    await row.waitFor();
    const text = await row.innerText();
    const others = Object.values(rows).filter((w) => w !== why);
    if (!text.includes(why) || others.some((w) => text.includes(w))) throw new Error(`${file}'s row does not say its own reason: ${JSON.stringify(text)}`);
  }
  await shot('sensitive-pick');
  await page.keyboard.press('Enter'); // nothing ticked

  await begin('applied: said file by file, the review closed');
  const applied = toast(/applied the proposal proposal-1: saved greet\.py, hello\.py; left out .*settings\.json \(editor configuration \(VS Code tasks and settings\)\), AGENTS\.md \(the agent's instructions\)/);
  await applied.waitFor({ timeout: 15_000 });
  await until(() => disk('hello.py').includes('Hello, agent!') && disk('greet.py').includes('print(greet())'), 'hello.py and the new greet.py saved');
  if (disk('.vscode/settings.json') !== '{}\n') throw new Error('the sensitive file was applied unticked');
  await gone(reviewTab('proposal-1'), 'the review closed after Apply');
  await gone(choice, 'the status bar choice gone after Apply');
  await gone(titleButton('Discard'), 'the title bar choice gone after Apply');
  // Applying opens no tab: the new file, the files left out, and hello.py
  // are where they were, and the user's hello.py is in front again.
  await userEditorInFront('hello.py', /greet\.py|settings\.json|AGENTS\.md/);
  if ((await tabState()).tabs.filter((t) => t === 'hello.py').length !== 1) throw new Error(`tabs after Apply: ${JSON.stringify((await tabState()).tabs)}`);

  await begin('what was left out, and why, is shown whole; Details lists it');
  await shownWhole(applied, 'the applied notification');
  await applied.locator('.monaco-button', { hasText: /^Details$/ }).click();
  const details = page.locator('.monaco-dialog-box');
  await details.waitFor();
  for (const line of ['.vscode/settings.json: editor configuration (VS Code tasks and settings)', 'AGENTS.md: the agent\'s instructions', 'greet.py']) {
    if (!(await details.innerText()).includes(line)) throw new Error(`the details do not say ${line}: ${JSON.stringify(await details.innerText())}`);
  }
  await shot('applied-details');
  await page.keyboard.press('Escape');
  await gone(details, 'the details closed');
  await dismissToasts();

  await begin('code action menu');
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

  await begin('applying from the palette closes the review; its old notification says what happened');
  await palette('Agent: Ask…');
  await input('rename greet');
  // The review says what the run-end review found: no test touches hello.py.
  const second = toast(/Agent proposes changes to 1 file \(proposal-3\)\. .*Tests: not run: no test touches the changed files.* Apply them\?/);
  await second.waitFor({ timeout: 30_000 });
  await reviewTab('proposal-3').waitFor();
  await palette('Agent: Apply Proposal');
  await toast(/applied the proposal proposal-3: saved hello\.py\./).waitFor({ timeout: 15_000 });
  await gone(reviewTab('proposal-3'), 'the review closed after the palette\'s Apply');
  await gone(statusItem('proposal-3'), 'the status bar choice gone after the palette\'s Apply');
  await until(() => disk('hello.py').includes('def hello'), 'hello.py saved with the rename');
  if (await second.isVisible()) {
    await second.locator('.monaco-button', { hasText: /^Apply$/ }).click();
    await toast(/proposal-3 is already applied; nothing more to do/).waitFor({ timeout: 10_000 });
  } else console.log('  the old notification had hidden itself');
  await noToast(/stays pending/, 'a settled proposal said to stay pending');
  await dismissToasts();

  await begin('a refused Apply leaves the review open, the proposal pending');
  await palette('Agent: Ask…');
  await input('greet the reviewer');
  await toast(/Agent proposes changes to 1 file \(proposal-4\)\./).waitFor({ timeout: 30_000 });
  await reviewTab('proposal-4').waitFor();
  // The user edits the line the agent changes, and does not save.
  await page.locator('.tab', { hasText: 'hello.py' }).first().click();
  await page.locator('.monaco-editor .view-line', { hasText: 'Hello, agent!' }).first().click();
  await page.keyboard.press('End');
  await page.keyboard.type(' # mine');
  await reviewTab('proposal-4').click();
  await titleButton('Apply').click();
  await toast(/agent-lsp: proposal-4 not applied: hello\.py: the file changed where the agent wants to edit it.*proposal-4 stays pending/).waitFor({ timeout: 15_000 });
  await shot('refused');
  const said = await page.locator('.notifications-toasts .notification-toast', { hasText: 'proposal-4 not applied' }).count();
  if (said !== 1) throw new Error(`the refusal was said ${said} times`);
  await reviewTab('proposal-4').waitFor();
  await statusItem('proposal-4').waitFor();
  if (!disk('hello.py').includes('Hello, agent!')) throw new Error('a refused Apply changed hello.py');
  await dismissToasts();

  await begin('the code action applies and says what it did, naming the file left unsaved');
  // The user moves their change to a line of its own, still unsaved.
  await page.locator('.tab', { hasText: 'hello.py' }).first().click();
  await page.locator('.monaco-editor .view-line', { hasText: 'Hello, agent!' }).first().click();
  await page.keyboard.press('End');
  for (let i = 0; i < ' # mine'.length; i++) await page.keyboard.press('Backspace');
  await page.keyboard.press('Control+End');
  await page.keyboard.type('# mine');
  await palette('Source Action...');
  await page.locator('.action-widget', { hasText: 'Apply agent proposal' }).waitFor();
  await shot('source-actions');
  await page.locator('.action-widget .monaco-list-row', { hasText: /Apply agent proposal \(1 file\(s\), proposal-4\)/ }).click();
  const unsavedSaid = toast(/applied the proposal proposal-4: left hello\.py unsaved: it had unsaved changes before/);
  await unsavedSaid.waitFor({ timeout: 15_000 });
  await shownWhole(unsavedSaid, 'the applied notification naming the file left unsaved');
  await gone(reviewTab('proposal-4'), 'the review closed after the code action\'s Apply');
  await page.locator('.monaco-editor .view-line', { hasText: 'Hello, reviewer!' }).first().waitFor();
  if (disk('hello.py').includes('Hello, reviewer!')) throw new Error('the unsaved hello.py was saved');
  await page.keyboard.press('Control+S');
  await until(() => disk('hello.py').includes('Hello, reviewer!') && disk('hello.py').includes('# mine'), 'hello.py saved by the user, with both changes');
  await dismissToasts();

  await begin('discard from the status bar');
  await palette('Agent: Ask…');
  await input('add a docstring');
  await toast(/Agent proposes changes to 1 file \(proposal-5\)\./).waitFor({ timeout: 30_000 });
  await statusItem('proposal-5').click();
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Show the Review' }).waitFor();
  await shot('status-choice');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: /^Discard/ }).click();
  await toast(/discarded the proposal proposal-5; no file was changed/).waitFor({ timeout: 15_000 });
  await gone(reviewTab('proposal-5'), 'the review closed after Discard');
  if (disk('hello.py').includes('Greets')) throw new Error('a discarded proposal changed hello.py');
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
    // Every proposal is settled: each says there is none to act on.
    ['Agent: Apply Proposal', /agent-lsp: there is no pending proposal/],
    ['Agent: Apply Proposal with Sensitive Files…', /agent-lsp: there is no pending proposal/],
    ['Agent: Discard Proposal', /agent-lsp: there is no pending proposal/],
    ['Agent: Keep the Agent\'s Notes', /agent-lsp: .*note/i],
  ]) {
    console.log(`  ${command}`);
    await palette(command);
    await toast(said).waitFor({ timeout: 10_000 });
    await dismissToasts();
  }

  await begin('a ticked sensitive file is written whole, and the proposal is applied');
  await palette('Agent: Ask…');
  await input('use the system python');
  await toast(/Agent proposes changes to 1 file \(proposal-7\), 1 of them editor, agent or CI configuration/).waitFor({ timeout: 30_000 });
  await reviewTab('proposal-7').waitFor();
  await titleButton('Apply with Sensitive Files…').click();
  const tick = page.locator('.quick-input-widget', { hasText: 'tick those to apply too' });
  await tick.waitFor();
  await tick.locator('.monaco-list-row', { hasText: '.vscode/settings.json' }).click();
  await shot('sensitive-ticked');
  await page.keyboard.press('Enter');
  await toast(/applied the proposal proposal-7: saved \.vscode\/settings\.json\./).waitFor({ timeout: 15_000 });
  await until(() => disk('.vscode/settings.json').includes('/usr/bin/python3'), '.vscode/settings.json written');
  await noToast(/was not applied/, 'the ticked file was written, yet the proposal was said not applied');
  await gone(reviewTab('proposal-7'), 'the review closed after Apply');
  await dismissToasts();
  // The server settled it as applied: nothing is left to apply.
  await palette('Agent: Apply Proposal');
  await toast(/agent-lsp: there is no pending proposal/).waitFor({ timeout: 10_000 });
  await dismissToasts();

  await nextEditSteps();
}

// Next edit suggestions: renaming a parameter by typing suggests renaming
// its use on the next line, shown where it applies with a hint at the
// cursor; Tab jumps to it, Tab accepts it; Esc dismisses another.
async function nextEditSteps() {
  await begin('next edit: a rename by typing suggests its use');
  await quickOpen('scale.py');
  await page.locator('.monaco-editor .view-lines', { hasText: 'def scale' }).waitFor();
  await goTo('1:11');
  await page.keyboard.press('Shift+Control+ArrowRight');
  await page.keyboard.type('amount', { delay: 30 });
  await until(async () => (await decorations()).after.includes('Next edit at line 2 · Tab to jump'), 'the hint at the cursor\'s line');
  let shown = await decorations();
  if (!shown.after.includes('amount') || shown.struck.join('') !== 'value') throw new Error(`the suggestion is not shown where it applies: ${JSON.stringify(shown)}`);
  await shot('next-edit-shown');

  await begin('next edit: Tab jumps to it');
  await page.keyboard.press('Tab');
  await until(async () => !(await decorations()).after.some((t) => t.startsWith('Next edit at')), 'the hint gone at the edit');
  shown = await decorations();
  if (!shown.after.includes('amount') || shown.struck.join('') !== 'value') throw new Error(`the suggestion went with the jump: ${JSON.stringify(shown)}`);
  if (await lineText(1) !== 'def scale(amount, factor):') throw new Error(`Tab typed into the line: ${await lineText(1)}`);

  await begin('next edit: Tab accepts it');
  await page.keyboard.press('Tab');
  await until(async () => (await lineText(2)) === '    return amount * factor', 'the edit applied');
  await until(async () => isEmpty(await decorations()), 'the suggestion cleared once accepted');
  await shot('next-edit-accepted');

  await begin('next edit: Esc dismisses one');
  await goTo('5:11');
  await page.keyboard.press('Shift+Control+ArrowRight');
  await page.keyboard.type('words', { delay: 30 });
  await until(async () => (await decorations()).after.includes('Next edit at line 6 · Tab to jump'), 'the second suggestion');
  await page.keyboard.press('Escape');
  await until(async () => isEmpty(await decorations()), 'the suggestion dismissed');
  if (await lineText(6) !== '    return text.upper() + "!"') throw new Error(`a dismissed suggestion changed its line: ${await lineText(6)}`);
  await page.keyboard.press('Control+S');
  await until(() => disk('scale.py').includes('def shout(words)'), 'scale.py saved');
}

// decorations is what the active editor shows beside its text: the
// ::after text of decorations (drawn with CSS, out of innerText's reach)
// and the struck-through text.
function decorations() {
  return page.evaluate(() => {
    const out = { after: [], struck: [] };
    for (const el of document.querySelectorAll('.editor-group-container.active .monaco-editor .view-line span')) {
      const content = getComputedStyle(el, '::after').content;
      if (content.startsWith('"')) out.after.push(content.slice(1, -1).replace(/\\(.)/g, '$1'));
      if (el.children.length === 0 && getComputedStyle(el).textDecorationLine.includes('line-through')) out.struck.push(el.textContent);
    }
    return out;
  });
}

function isEmpty(shown) {
  return shown.after.length === 0 && shown.struck.length === 0;
}

// lineText is the active editor's line n (from 1) as it shows it.
async function lineText(n) {
  const lines = await page.locator('.editor-group-container.active .monaco-editor .view-line').evaluateAll((els) =>
    els.map((el) => ({ top: parseFloat(el.style.top), text: el.textContent.replace(/\u00a0/g, ' ') })).sort((a, b) => a.top - b.top).map((l) => l.text));
  return lines[n - 1];
}

// goTo puts the cursor at line:column through Go to Line.
async function goTo(where) {
  await page.keyboard.press('Control+G');
  const box = page.locator('.quick-input-widget input');
  await box.waitFor();
  await box.fill(':' + where);
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
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
  const review = toast(/Agent proposes changes to 1 file \(proposal-\d+\)\./);
  await review.waitFor({ timeout: 30_000 });
  await shot('review');
  await review.locator('.monaco-button', { hasText: /^Apply$/ }).click();
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

// shownWhole checks that a notification's text is not cut: VS Code draws
// one without buttons on a line, its end hidden until expanded.
async function shownWhole(notification, what) {
  const message = notification.locator('.notification-list-item-message');
  const cut = await message.evaluate((el) => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1);
  if (cut) throw new Error(`${what} is cut off: ${JSON.stringify(await message.innerText())}`);
}

// userEditorInFront checks, once VS Code had the time to open a file that
// turned dirty outside an editor (800 ms), that the review closed onto the
// user's own editor (file) and that no tab opened for a file matching unasked.
async function userEditorInFront(file, unasked) {
  await page.waitForTimeout(2000);
  const { tabs, active } = await tabState();
  if (active !== file || tabs.some((t) => unasked.test(t))) throw new Error(`after Apply the active tab is ${active}, the tabs ${JSON.stringify(tabs)}`);
}

// tabState is every tab's label and the active tab's, in the active group.
function tabState() {
  return page.evaluate(() => {
    const label = (t) => (t.getAttribute('aria-label') ?? '').split(', ')[0]; // "hello.py, preview"
    const tabs = [...document.querySelectorAll('.tab')];
    const active = document.querySelector('.editor-group-container.active .tab.active');
    return { tabs: tabs.map(label), active: active && label(active) };
  });
}

// reviewTab is the tab of the review of the proposal id.
function reviewTab(id) {
  return page.locator('.tab', { hasText: `Agent ${id}:` }).first();
}

// titleButton is a button of the active editor's title bar.
function titleButton(name) {
  return page.locator('.editor-group-container.active .editor-actions .action-label', { hasText: new RegExp(`^${name}$`) }).first();
}

// statusItem is the status bar's choice for the proposal id.
function statusItem(id) {
  return page.locator('.statusbar-item', { hasText: `Agent ${id}: Apply or Discard` }).first();
}

async function gone(locator, what) {
  await until(async () => (await locator.count()) === 0 || !(await locator.isVisible()), what);
}

async function noToast(text, what) {
  const shown = await page.locator('.notifications-toasts .notification-toast', { hasText: text }).count();
  if (shown > 0) throw new Error(what);
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
