import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { initializationOptions } from '../args';

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

test('every setting sent to the server is declared', () => {
  const values: Record<string, unknown> = { provider: 'openai', model: 'm', baseUrl: 'http://x', allowlist: ['a'], maxIterations: 3 };
  for (const key of Object.keys(initializationOptions({ get: <T>(k: string) => values[k] as T }))) {
    assert.ok(properties[`agent-lsp.${key}`], key);
  }
});
