"use strict";
// Pure helpers of the extension: no vscode import, so they run under
// `node --test` (the VS Code host cannot be downloaded in CI).
Object.defineProperty(exports, "__esModule", { value: true });
exports.askArgs = askArgs;
exports.initializationOptions = initializationOptions;
exports.summary = summary;
/**
 * askArgs builds agent.ask's arguments. An empty selection sends no range,
 * so the server sees the cursor's file without a selection.
 */
function askArgs(prompt, uri, selection) {
    const args = { prompt: prompt.trim(), wait: true };
    if (uri) {
        args.uri = uri;
        if (selection && !isEmpty(selection)) {
            args.range = selection;
        }
    }
    return args;
}
function isEmpty(r) {
    return r.start.line === r.end.line && r.start.character === r.end.character;
}
/**
 * initializationOptions maps the extension's settings to the server's
 * (camelCase, empty values left out so the server's own config applies).
 * API keys are never among them: the server reads them from its environment.
 */
function initializationOptions(s) {
    const out = {};
    for (const key of ['provider', 'model', 'baseUrl']) {
        const v = s.get(key);
        if (typeof v === 'string' && v.trim() !== '')
            out[key] = v.trim();
    }
    const allow = s.get('allowlist');
    if (Array.isArray(allow)) {
        const cleaned = allow.map((a) => String(a).trim()).filter((a) => a !== '');
        if (cleaned.length > 0)
            out.allowlist = cleaned;
    }
    const iterations = s.get('maxIterations');
    if (typeof iterations === 'number' && iterations > 0)
        out.maxIterations = Math.floor(iterations);
    return out;
}
/** summary is the one-line message shown when a run ends. */
function summary(r) {
    if (r.state && r.state !== 'completed') {
        return `Agent ${r.state}: ${firstLine(r.answer ?? '')}`;
    }
    const files = (r.diff ?? '').split('\n').filter((l) => l.startsWith('+++ ')).length;
    if (files === 0)
        return `Agent: ${firstLine(r.answer ?? 'done')}` + notesHint(r.notes, false);
    return `Agent proposes changes to ${files} file${files === 1 ? '' : 's'} (${r.proposalId}): review them in the preview.` + notesHint(r.notes, true);
}
/** notesHint tells how to keep the notes the agent wants to remember. */
function notesHint(notes, withChanges) {
    const n = notes?.length ?? 0;
    if (n === 0)
        return '';
    const how = withChanges ? 'applying the changes keeps them, or "Agent: Keep the Agent\'s Notes"' : 'keep them with "Agent: Keep the Agent\'s Notes"';
    return ` The agent wants to remember ${n} note${n === 1 ? '' : 's'} (see the answer): ${how}.`;
}
function firstLine(s) {
    const line = s.trim().split('\n')[0] ?? '';
    return line.length > 120 ? line.slice(0, 119) + '…' : line;
}
//# sourceMappingURL=args.js.map