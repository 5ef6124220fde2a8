import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serverSettingKeys } from '../args';

// A repository's .vscode/settings.json must not set what widens what the
// agent does without the user: VS Code ignores workspace values of settings
// with "machine" scope. Every setting is declared, since the client sends the
// whole agent-lsp section, declared or not, to the server.
const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8'));
const properties: Record<string, { scope?: string }> = manifest.contributes.configuration.properties;

test('settings that widen what happens unasked are user settings only', () => {
  for (const key of ['path', 'provider', 'baseUrl', 'allowlist', 'noDefaultAllowlist', 'autoApply', 'fallback', 'degraded', 'checks',
    'maxIterations', 'commandTimeoutS', 'maxOutput', 'maxTrials', 'maxReplans', 'contextWindow', 'retryAttempts', 'retryBaseMs']) {
    assert.equal(properties[`agent-lsp.${key}`]?.scope, 'machine', key);
  }
  for (const [key, p] of Object.entries(properties)) {
    assert.ok(p.scope === 'machine' || p.scope === 'machine-overridable', `${key} has scope ${p.scope}`);
  }
});

test('every declared setting but the path is one the server reads', () => {
  const config = readFileSync(join(__dirname, '..', '..', '..', '..', 'agent', 'config', 'settings.go'), 'utf8');
  const keys = serverSettingKeys(manifest);
  assert.ok(keys.length > 20, `only ${keys.length} settings`);
  for (const key of keys) {
    assert.ok(config.includes(`json:"${key},`) || config.includes(`json:"${key}"`), `${key} is not a field of agent/config.Settings`);
  }
});

test('every declared command is registered, and the review\'s buttons show on the review alone', () => {
  const dir = join(__dirname, '..', '..', 'src');
  const sources = ['extension.ts', 'review.ts', 'nextEdit.ts', 'sessionOptions.ts'].map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
  const declared: string[] = manifest.contributes.commands.map((c: { command: string }) => c.command);
  for (const command of declared) {
    assert.ok(sources.includes(`registerCommand('${command}'`), `${command} is declared but not registered`);
  }
  const title: { command: string; when?: string }[] = manifest.contributes.menus['editor/title'];
  assert.deepEqual(title.map((m) => m.command), ['agent-lsp.review.apply', 'agent-lsp.review.applyWithSensitive', 'agent-lsp.review.discard']);
  for (const m of title) {
    assert.match(m.when ?? '', /^agent-lsp\.reviewActive\b/, `${m.command} shows outside the review`);
    for (const key of (m.when ?? '').match(/agent-lsp\.\w+/g) ?? []) {
      assert.ok(sources.includes(`'${key}'`), `${m.command}'s when clause names ${key}, which the extension never sets`);
    }
  }
  const hidden: { command: string; when?: string }[] = manifest.contributes.menus.commandPalette;
  for (const command of declared.filter((c) => c.startsWith('agent-lsp.review.'))) {
    assert.ok(hidden.some((m) => m.command === command && m.when === 'false'), `${command} is in the palette`);
  }
});

test('Tab and Esc go to the next edit only while it shows, and yield to VS Code\'s own suggestions', () => {
  const source = readFileSync(join(__dirname, '..', '..', 'src', 'nextEdit.ts'), 'utf8');
  const bindings: { command: string; key: string; when: string }[] = manifest.contributes.keybindings;
  assert.deepEqual(bindings.map((b) => [b.key, b.command]), [['tab', 'agent-lsp.nextEditTab'], ['escape', 'agent-lsp.dismissNextEdit']]);
  for (const b of bindings) {
    assert.match(b.when, /\bagentLsp\.nextEditVisible\b/, b.key);
    assert.match(b.when, /!suggestWidgetVisible\b/, b.key);
    assert.match(b.when, /!inlineSuggestionVisible\b/, b.key);
  }
  assert.ok(source.includes(`'agentLsp.nextEditVisible'`), 'nextEdit.ts never sets the context key the keybindings need');
});
