"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
const node_test_1 = require("node:test");
const strict_1 = __importDefault(require("node:assert/strict"));
const node_fs_1 = require("node:fs");
const node_path_1 = require("node:path");
const args_1 = require("../args");
// A repository's .vscode/settings.json must not set what widens what the
// agent does without the user: VS Code ignores workspace values of settings
// with "machine" scope. Every setting is declared, since the client sends the
// whole agent-lsp section, declared or not, to the server.
const manifest = JSON.parse((0, node_fs_1.readFileSync)((0, node_path_1.join)(__dirname, '..', '..', 'package.json'), 'utf8'));
const properties = manifest.contributes.configuration.properties;
(0, node_test_1.test)('settings that widen what happens unasked are user settings only', () => {
    for (const key of ['path', 'provider', 'baseUrl', 'allowlist', 'noDefaultAllowlist', 'autoApply', 'fallback', 'degraded', 'checks',
        'maxIterations', 'commandTimeoutS', 'maxOutput', 'maxTrials', 'maxReplans', 'contextWindow', 'retryAttempts', 'retryBaseMs']) {
        strict_1.default.equal(properties[`agent-lsp.${key}`]?.scope, 'machine', key);
    }
    for (const [key, p] of Object.entries(properties)) {
        strict_1.default.ok(p.scope === 'machine' || p.scope === 'machine-overridable', `${key} has scope ${p.scope}`);
    }
});
(0, node_test_1.test)('every setting sent to the server is declared', () => {
    const values = { provider: 'openai', model: 'm', baseUrl: 'http://x', allowlist: ['a'], maxIterations: 3 };
    for (const key of Object.keys((0, args_1.initializationOptions)({ get: (k) => values[k] }))) {
        strict_1.default.ok(properties[`agent-lsp.${key}`], key);
    }
});
//# sourceMappingURL=package.test.js.map