// Pure helpers of the extension: no vscode import, so they run under
// `node --test` (the VS Code host cannot be downloaded in CI).
import { appliedMessage, notAppliedMessage } from './proposals';

/** Position and Range as LSP sends them (0-based, UTF-16). */
export interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }

/** The arguments of the server's agent.ask command. */
export interface AskArgs {
  prompt: string;
  uri?: string;
  range?: Range;
  /** ask (read-only), code or plan; absent follows the configured strategy. */
  mode?: 'ask' | 'code' | 'plan';
  wait: boolean;
}

/**
 * askArgs builds agent.ask's arguments. An empty selection sends no range,
 * so the server sees the cursor's file without a selection.
 */
export function askArgs(prompt: string, uri?: string, selection?: Range, mode?: AskArgs['mode']): AskArgs {
  const args: AskArgs = { prompt: prompt.trim(), wait: true };
  if (mode) args.mode = mode;
  if (uri) {
    args.uri = uri;
    if (selection && !isEmpty(selection)) {
      args.range = selection;
    }
  }
  return args;
}

function isEmpty(r: Range): boolean {
  return r.start.line === r.end.line && r.start.character === r.end.character;
}

/** Reads settings by name, as vscode.WorkspaceConfiguration.get does. */
export interface Settings { get<T>(key: string): T | undefined }

/** Settings of the extension alone: they never reach the server. */
const clientOnlySettings = new Set(['path']);

/**
 * serverSettingKeys are the declared settings (package.json's
 * contributes.configuration) the server reads, without the "agent-lsp."
 * prefix: every one but the client's own, so a setting added to the
 * manifest reaches the server without a second list here.
 */
export function serverSettingKeys(manifest: { contributes?: { configuration?: { properties?: Record<string, unknown> } } }): string[] {
  return Object.keys(manifest.contributes?.configuration?.properties ?? {})
    .map((k) => k.replace(/^agent-lsp\./, ''))
    .filter((k) => !clientOnlySettings.has(k));
}

/**
 * initializationOptions maps the extension's settings to the server's (the
 * names are the same, camelCase), so the server starts with the user's
 * configuration. Unset values are left out so the server's own config
 * applies: empty strings, 0, null and empty lists. API keys are never among
 * them: the server reads them from its environment.
 */
export function initializationOptions(s: Settings, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const v = unsetToUndefined(s.get<unknown>(key));
    if (v !== undefined) out[key] = v;
  }
  return out;
}

function unsetToUndefined(v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') return v.trim() === '' ? undefined : v.trim();
  if (typeof v === 'number') return v > 0 ? Math.floor(v) : undefined;
  if (Array.isArray(v)) {
    const kept = v.map((a) => (typeof a === 'string' ? a.trim() : a)).filter((a) => a !== '' && a !== null && a !== undefined);
    return kept.length > 0 ? kept : undefined;
  }
  if (typeof v === 'object') return Object.keys(v as object).length > 0 ? v : undefined;
  return v;
}

/** The result of agent.ask with wait: true. */
export interface AskResult {
  runId: string;
  proposalId?: string; // none for a read-only run
  state?: string;
  answer?: string;
  diff?: string;
  /** Notes the agent wants to remember: kept only if the user accepts them. */
  notes?: string[];
}

/** summary is the one-line message shown when a run ends. */
export function summary(r: AskResult): string {
  if (r.state === 'cancelled') return 'Agent run cancelled.';
  if (r.state && r.state !== 'completed') {
    return `Agent ${r.state}: ${firstLine(r.answer ?? '')}`;
  }
  const files = (r.diff ?? '').split('\n').filter((l) => l.startsWith('+++ ')).length;
  if (files === 0) return `Agent: ${firstLine(r.answer ?? 'done')}` + notesHint(r.notes, false);
  return `Agent proposes changes to ${files} file${files === 1 ? '' : 's'} (${r.proposalId}): ${firstLine(r.answer ?? '')}` + notesHint(r.notes, true);
}

/** notesHint tells how to keep the notes the agent wants to remember. */
function notesHint(notes: string[] | undefined, withChanges: boolean): string {
  const n = notes?.length ?? 0;
  if (n === 0) return '';
  const how = withChanges ? 'applying the changes keeps them, or "Agent: Keep the Agent\'s Notes"' : 'keep them with "Agent: Keep the Agent\'s Notes"';
  return ` The agent wants to remember ${n} note${n === 1 ? '' : 's'} (see the answer): ${how}.`;
}

function firstLine(s: string): string {
  const line = s.trim().split('\n')[0] ?? '';
  return line.length > 120 ? line.slice(0, 119) + '…' : line;
}

/**
 * withAgentCapabilities adds the experimental capabilities that tell the
 * server this client asks for agent.ask's prompt itself (the middleware's
 * input box), so its "Ask agent…" actions carry a command, not a comment
 * template; and that its pushed settings are the user's alone (every
 * setting is machine-scoped, so no .vscode/settings.json sets one), so the
 * server takes them as it takes the user's config; and that it shows next
 * edits itself (nextEdit.ts), so the server puts none in inline completion.
 */
export function withAgentCapabilities(caps: { experimental?: unknown }): void {
  const experimental = (caps.experimental ?? {}) as Record<string, unknown>;
  caps.experimental = { ...experimental, agentLsp: { ...((experimental.agentLsp ?? {}) as object), promptInput: true, userSettings: true, showsInlineEdits: true } };
}

/**
 * serverCommand picks the agent-lsp to start: a path the user set
 * (anything but the default), else the binary a platform-specific .vsix
 * carries (bundled: its path when it exists), else agent-lsp from PATH,
 * else where `go install` puts it (GOBIN, else GOPATH's bin, else ~/go/bin).
 */
export function serverCommand(setting: string | undefined, bundled: string | undefined, onPath: boolean, goInstalled: string | undefined): string {
  if (setting && setting !== 'agent-lsp') return setting;
  if (bundled) return bundled;
  if (onPath || !goInstalled) return 'agent-lsp';
  return goInstalled;
}

/**
 * humanError is what the user reads for a failed request: Go's and the
 * language client's words replaced by what happened.
 */
export function humanError(message: string): string {
  if (/context canceled|request (was )?cancel+ed/i.test(message)) return 'Agent run cancelled.';
  if (/client is not running|client is not ready|connection (got )?(closed|disposed)/i.test(message)) {
    return 'the agent-lsp server is not running (see the notification about starting it, or run "Developer: Reload Window").';
  }
  return message;
}

/** What a palette command's result tells the user. */
export function feedback(command: string, result: unknown): string {
  const r = (result ?? {}) as Record<string, unknown>;
  switch (command) {
    case 'agent.cancel': {
      const runs = (r.cancelled as string[] | undefined) ?? [];
      return runs.length === 0 ? 'Agent: no run to cancel.' : `Agent: cancelling ${runs.join(', ')}.`;
    }
    case 'agent.newSession':
      return `Agent: started a new session${r.session ? ` (${r.session})` : ''}; the agent forgot the conversation.`;
    case 'agent.discardProposal':
      return `Agent: discarded the proposal ${r.id}; no file was changed.`;
    case 'agent.applyProposal':
      return r.applied ? appliedMessage(String(r.id)) : notAppliedMessage(String(r.id), r.reason ? String(r.reason) : undefined);
    case 'agent.keepNotes': {
      const n = Number(r.kept ?? 0);
      return `Agent: kept ${n} note${n === 1 ? '' : 's'} of ${r.id}.`;
    }
  }
  return `Agent: ${command} done.`;
}

/** An LSP text edit (positions in UTF-16 code units, as VS Code counts). */
export interface TextEdit { range: Range; newText: string }

/**
 * applyTextEdits is text with edits applied, as an LSP client applies
 * them: the ranges refer to the original text and do not overlap. The
 * review shows this beside the file before anything is written.
 */
export function applyTextEdits(text: string, edits: TextEdit[]): string {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const offset = (p: Position) => {
    if (p.line >= lineStarts.length) return text.length;
    const start = lineStarts[p.line];
    const end = p.line + 1 < lineStarts.length ? lineStarts[p.line + 1] - 1 : text.length;
    return Math.min(start + p.character, end);
  };
  const sorted = edits
    .map((e, i) => ({ start: offset(e.range.start), end: offset(e.range.end), text: e.newText, i }))
    .sort((a, b) => a.start - b.start || a.i - b.i);
  let out = '';
  let at = 0;
  for (const e of sorted) {
    if (e.start < at) throw new Error('overlapping edits');
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + text.slice(at);
}

/**
 * proposalOfLabel reads the server's workspace/applyEdit label,
 * "agent-lsp: proposal-3: <request>": the proposal's name, to apply or
 * discard that one, and the request it answers. An older server's label
 * has no name: id is undefined, and the newest pending proposal is meant.
 */
export function proposalOfLabel(label: string | undefined): { id?: string; request: string } {
  const m = /^agent-lsp: (proposal-\d+): ([\s\S]*)$/.exec(label ?? '');
  if (m) return { id: m[1], request: m[2] };
  return { request: (label ?? 'agent-lsp').replace(/^agent-lsp: /, '') };
}

/** SessionStatus is what agent.status says of the next runs' model and the context meter. */
export interface SessionStatus {
  model?: string;
  thinking?: string;
  context?: { used: number; size: number };
}

/** tokens shows a token count short: 950, 12k, 1.0M. */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** meterText is the status bar text for a status. */
export function meterText(st: SessionStatus): string {
  const model = st.model || 'no model';
  return st.context ? `$(hubot) ${model} · ${tokens(st.context.used)}/${tokens(st.context.size)}` : `$(hubot) ${model}`;
}

const utf8BOM = [0xef, 0xbb, 0xbf];

/**
 * withBOMOf is text as UTF-8, led by a byte order mark where the file's
 * bytes (old) have one: the text was read without it (TextDecoder drops
 * it), and writing the file whole must not drop it too.
 */
export function withBOMOf(old: Uint8Array, text: string): Uint8Array {
  const body = new TextEncoder().encode(text.startsWith('\uFEFF') ? text.slice(1) : text);
  if (!utf8BOM.every((b, i) => old[i] === b)) return body;
  const out = new Uint8Array(utf8BOM.length + body.length);
  out.set(utf8BOM);
  out.set(body, utf8BOM.length);
  return out;
}
