// What the extension knows and says of the agent's proposals: their
// states, following the server's, and the messages of the review. Pure: no
// vscode import, so it runs under `node --test`.

/**
 * A proposal's state, as the server's agent.status names it: pending until
 * the user chooses, applying while its edit is with the editor, then
 * applied or discarded for good.
 */
export type ProposalState = 'pending' | 'applying' | 'applied' | 'discarded';

const states: readonly string[] = ['pending', 'applying', 'applied', 'discarded'];

/** settled reports whether nothing more can be done with a proposal. */
export function settled(state: ProposalState | undefined): boolean {
  return state === 'applied' || state === 'discarded';
}

/** statesOf reads each proposal's state from agent.status's answer. */
export function statesOf(status: unknown): Map<string, ProposalState> {
  const out = new Map<string, ProposalState>();
  const proposals = (status as { proposals?: unknown } | undefined)?.proposals;
  if (!Array.isArray(proposals)) return out;
  for (const p of proposals as { id?: unknown; state?: unknown }[]) {
    if (typeof p?.id === 'string' && typeof p.state === 'string' && states.includes(p.state)) out.set(p.id, p.state as ProposalState);
  }
  return out;
}

/**
 * stateAfter is what a command's answer, or its error, says of a proposal's
 * state: agent.applyProposal's {id, applied}, agent.discardProposal's {id},
 * or the server's refusals ("proposal-3 is already applied", "proposal-3
 * not applied: …", which leaves it pending). Undefined: it says nothing.
 */
export function stateAfter(command: string, result: unknown, error?: string): { id: string; state: ProposalState } | undefined {
  if (error !== undefined) {
    const already = /\b(proposal-\d+) is already (pending|applying|applied|discarded)\b/.exec(error);
    if (already) return { id: already[1], state: already[2] as ProposalState };
    const refused = /\b(proposal-\d+) not applied\b/.exec(error);
    if (refused && command === 'agent.applyProposal') return { id: refused[1], state: 'pending' };
    return undefined;
  }
  const r = (result ?? {}) as { id?: unknown; applied?: unknown };
  if (typeof r.id !== 'string' || r.id === '') return undefined;
  if (command === 'agent.applyProposal') return { id: r.id, state: r.applied ? 'applied' : 'pending' };
  if (command === 'agent.discardProposal') return { id: r.id, state: 'discarded' };
  return undefined;
}

/** A sensitive file left out of an apply, with the reason it is sensitive. */
export interface LeftOut { path: string; why: string }

/**
 * ApplyReport is what applying a proposal did to each file, as the
 * extension's edit handler saw it: saved (the user had no unsaved changes
 * there), left unsaved (the user had unsaved changes before: their buffer
 * now holds both), or left out (sensitive, not ticked).
 */
export interface ApplyReport { saved: string[]; unsaved: string[]; leftOut: LeftOut[] }

/**
 * noticeLimit bounds what a notification says, so that it shows whole
 * (VS Code cuts a notification's text at 1000 characters): beyond it the
 * lists are counted, and its Details name every file.
 */
export const noticeLimit = 300;

/** appliedMessage says what applying the proposal id did, file by file (counted beyond noticeLimit). */
export function appliedMessage(id: string, report?: ApplyReport): string {
  const named = appliedParts(report, (paths) => paths.join(', '), (left) => left.map((l) => `${l.path} (${l.why})`).join(', '));
  const message = appliedSentence(id, named);
  if (message.length <= noticeLimit) return message;
  const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;
  return appliedSentence(id, appliedParts(report, (paths) => files(paths.length),
    (left) => `${files(left.length)} of editor, agent or CI configuration (Details names each, with its reason)`));
}

function appliedSentence(id: string, parts: string[]): string {
  return `Agent: applied the proposal ${id}${parts.length > 0 ? ': ' + parts.join('; ') : ''}.`;
}

function appliedParts(report: ApplyReport | undefined, paths: (p: string[]) => string, leftOut: (l: LeftOut[]) => string): string[] {
  const parts: string[] = [];
  if (report?.saved.length) parts.push(`saved ${paths(report.saved)}`);
  if (report?.unsaved.length) {
    const one = report.unsaved.length === 1;
    parts.push(`left ${paths(report.unsaved)} unsaved: ${one ? 'it' : 'they'} had unsaved changes before, which ${one ? 'it keeps' : 'they keep'} with the agent's (save ${one ? 'it' : 'them'} when ready)`);
  }
  if (report?.leftOut.length) parts.push(`left out ${leftOut(report.leftOut)}`);
  return parts;
}

/**
 * appliedDetails lists, one file a line, what applying the proposal did
 * beyond saving: each file left out with the reason, each left unsaved,
 * then those saved. Undefined when every file was simply saved.
 */
export function appliedDetails(report?: ApplyReport): string | undefined {
  if (!report || (report.leftOut.length === 0 && report.unsaved.length === 0)) return undefined;
  const sections: string[] = [];
  if (report.leftOut.length) {
    sections.push('Left out, not written (editor, agent or CI configuration you did not tick):\n' +
      report.leftOut.map((l) => `• ${l.path}: ${l.why}`).join('\n'));
  }
  if (report.unsaved.length) {
    sections.push('Changed but left unsaved (they had unsaved changes of yours, kept with the agent\'s; save them when ready):\n' +
      report.unsaved.map((p) => `• ${p}`).join('\n'));
  }
  if (report.saved.length) sections.push('Changed and saved:\n' + report.saved.map((p) => `• ${p}`).join('\n'));
  return sections.join('\n\n');
}

/** notAppliedMessage says that the proposal id was not applied, and stays pending. */
export function notAppliedMessage(id: string, reason?: string): string {
  return `Agent: the proposal ${id} was not applied${reason ? ` (${reason})` : ''}; it stays pending: ` +
    'Apply or Discard it in its review (title bar or status bar), or "Agent: Apply Proposal".';
}

/**
 * refusedMessage is a failed apply or discard in plain words (message is
 * the server's error, as humanError words it), and, when the server still
 * has it pending, where the choice stays.
 */
export function refusedMessage(message: string, pending?: string): string {
  return `agent-lsp: ${message.trim().replace(/\.?$/, '.')}` +
    (pending ? ` ${pending} stays pending: Apply or Discard it in its review (title bar or status bar).` : '');
}

/**
 * alreadySettled is what a choice made on a proposal that is no longer
 * pending says — an old notification's button, a second click.
 */
export function alreadySettled(id: string, state: ProposalState): string {
  switch (state) {
    case 'applied': return `Agent: ${id} is already applied; nothing more to do.`;
    case 'discarded': return `Agent: ${id} was already discarded; no file was changed.`;
    case 'applying': return `Agent: ${id} is being applied; wait for it to finish.`;
  }
  return `Agent: ${id} is pending.`;
}

/** stillPending is said (in the status bar) when the review's notification is closed unanswered. */
export function stillPending(id: string): string {
  return `Agent: ${id} stays pending: Apply or Discard it from its review's title bar or the status bar.`;
}

/** The review's choices, as its buttons name them. */
export const choices = { apply: 'Apply', applyWithSensitive: 'Apply with Sensitive Files…', discard: 'Discard' } as const;

/** The applied notification's button that lists, file by file, what was left out or unsaved. */
export const detailsButton = 'Details';

/**
 * reviewMessage is the review notification's text: what the proposal
 * changes, what the run-end review said of it (verdicts: the language
 * servers' check and the tests', verdictsOf), and the choice.
 */
export function reviewMessage(id: string | undefined, files: number, sensitive: number, verdicts: string[] = []): string {
  const what = `Agent proposes changes to ${files} file${files === 1 ? '' : 's'}${id ? ` (${id})` : ''}`;
  const said = verdicts.map((v) => ` ${v}`).join('');
  if (sensitive === 0) return `${what}.${said} Apply them?`;
  const them = sensitive === 1 ? 'it' : 'them';
  return `${what}, ${sensitive} of them editor, agent or CI configuration: Apply leaves ${them} out, ` +
    `"${choices.applyWithSensitive}" lets you tick ${them}.${said} Apply?`;
}

/** The most of a verdict's lines the notification shows (the review's answer document has it whole). */
const verdictLines = 4;

/**
 * verdictsOf is what the run-end review said of proposal id, from
 * agent.status: the language servers' check and the tests', each its first
 * lines joined as one sentence (a notification is one paragraph).
 */
export function verdictsOf(status: unknown, id: string): string[] {
  const proposals = (status as { proposals?: unknown } | undefined)?.proposals;
  if (!Array.isArray(proposals)) return [];
  const p = (proposals as { id?: unknown; check?: unknown; tests?: unknown }[]).find((q) => q?.id === id);
  const out: string[] = [];
  for (const v of [p?.check, p?.tests]) {
    if (typeof v !== 'string' || v === '') continue;
    const lines = v.split('\n').map((l) => l.trim()).filter((l) => l !== '');
    const shown = lines.slice(0, verdictLines).join(' ');
    out.push(lines.length > verdictLines ? `${shown} …` : shown);
  }
  return out;
}

/** The annotation id a server before per-kind annotations puts on every sensitive file. */
const sensitiveGroup = 'agent-lsp.sensitive';
/** Each kind of sensitive file's annotation id: this, then the kind's reason. */
const sensitivePrefix = 'agent-lsp.sensitive: ';

/**
 * sensitiveReason is why the file an edit annotated with id is sensitive
 * (what editors, the agent or CI run or read), or undefined when it is not:
 * the server names the reason in each kind's annotation id; an older
 * server's single annotation describes them all at once.
 */
export function sensitiveReason(id: string | undefined, annotations: Record<string, { label?: string; description?: string }>): string | undefined {
  if (id?.startsWith(sensitivePrefix)) return id.slice(sensitivePrefix.length);
  if (id === sensitiveGroup) return annotations[id]?.description ?? 'editor, agent or CI configuration';
  return undefined;
}
