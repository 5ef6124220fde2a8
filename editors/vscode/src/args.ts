// Pure helpers of the extension: no vscode import, so they run under
// `node --test` (the VS Code host cannot be downloaded in CI).

/** Position and Range as LSP sends them (0-based, UTF-16). */
export interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }

/** The arguments of the server's agent.ask command. */
export interface AskArgs {
  prompt: string;
  uri?: string;
  range?: Range;
  wait: boolean;
}

/**
 * askArgs builds agent.ask's arguments. An empty selection sends no range,
 * so the server sees the cursor's file without a selection.
 */
export function askArgs(prompt: string, uri?: string, selection?: Range): AskArgs {
  const args: AskArgs = { prompt: prompt.trim(), wait: true };
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

/**
 * initializationOptions maps the extension's settings to the server's
 * (camelCase, empty values left out so the server's own config applies).
 * API keys are never among them: the server reads them from its environment.
 */
export function initializationOptions(s: Settings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['provider', 'model', 'baseUrl']) {
    const v = s.get<string>(key);
    if (typeof v === 'string' && v.trim() !== '') out[key] = v.trim();
  }
  const allow = s.get<string[]>('allowlist');
  if (Array.isArray(allow)) {
    const cleaned = allow.map((a) => String(a).trim()).filter((a) => a !== '');
    if (cleaned.length > 0) out.allowlist = cleaned;
  }
  const iterations = s.get<number>('maxIterations');
  if (typeof iterations === 'number' && iterations > 0) out.maxIterations = Math.floor(iterations);
  return out;
}

/** The result of agent.ask with wait: true. */
export interface AskResult {
  runId: string;
  proposalId: string;
  state?: string;
  answer?: string;
  diff?: string;
  /** Notes the agent wants to remember: kept only if the user accepts them. */
  notes?: string[];
}

/** summary is the one-line message shown when a run ends. */
export function summary(r: AskResult): string {
  if (r.state && r.state !== 'completed') {
    return `Agent ${r.state}: ${firstLine(r.answer ?? '')}`;
  }
  const files = (r.diff ?? '').split('\n').filter((l) => l.startsWith('+++ ')).length;
  if (files === 0) return `Agent: ${firstLine(r.answer ?? 'done')}` + notesHint(r.notes, false);
  return `Agent proposes changes to ${files} file${files === 1 ? '' : 's'} (${r.proposalId}): review them in the preview.` + notesHint(r.notes, true);
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
 * server takes them as it takes the user's config.
 */
export function withAgentCapabilities(caps: { experimental?: unknown }): void {
  const experimental = (caps.experimental ?? {}) as Record<string, unknown>;
  caps.experimental = { ...experimental, agentLsp: { ...((experimental.agentLsp ?? {}) as object), promptInput: true, userSettings: true } };
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
