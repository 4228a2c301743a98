import type { CheckpointInfo } from '../../../core/protocol/index.ts';
import { approvalWaitText } from '../approval-wait.ts';
import { formatTime } from '../format.ts';
import { USAGE_WAIT_WORD } from '../usage-wait.ts';
import { isEnded, orderedCodons } from './codons.ts';
import type { CodonRow, RunState } from './run-state.ts';

/** Derived views of the store, computed where they are shown. */

/** The run's checkpoints: the last checkpoint.list answer, plus any created since, oldest first. */
export function runCheckpoints(view: RunState['checkpoints'], runId: string | undefined): CheckpointInfo[] {
  const bySha = new Map<string, CheckpointInfo>();
  const listed = view.listed;
  if (listed && (!runId || listed.runId === runId)) {
    for (const c of listed.checkpoints) bySha.set(c.sha, c);
  }
  for (const c of view.created) bySha.set(c.sha, c);
  return [...bySha.values()].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
}

export type RollbackChoice =
  | { kind: 'lastSuccess'; label: string }
  | { kind: 'codon'; codonId: string; checkpointType: 'start' | 'end'; label: string }
  | { kind: 'checkpoint'; sha: string; label: string };

/** What the rollback picker offers: last success, each started codon's start and end, each checkpoint. */
export function rollbackTargets(
  codons: RunState['codons'],
  checkpoints: RunState['checkpoints'],
  runId: string | undefined,
): RollbackChoice[] {
  const targets: RollbackChoice[] = [{ kind: 'lastSuccess', label: 'the last successful codon' }];
  for (const codon of orderedCodons(codons)) {
    if (codon.attempts === 0 && codon.status === 'pending') continue;
    targets.push({
      kind: 'codon',
      codonId: codon.codonId,
      checkpointType: 'start',
      label: `start of ${codon.codonId} (${codon.codonName})`,
    });
    if (isEnded(codon.status)) {
      targets.push({
        kind: 'codon',
        codonId: codon.codonId,
        checkpointType: 'end',
        label: `end of ${codon.codonId} (${codon.status})`,
      });
    }
  }
  for (const c of runCheckpoints(checkpoints, runId).slice().reverse()) {
    targets.push({
      kind: 'checkpoint',
      sha: c.sha,
      label: `checkpoint ${c.sha.slice(0, 8)} ${c.codonId} ${c.checkpointType} ${formatTime(c.timestamp)}`,
    });
  }
  return targets;
}

/** The latest notice (connection changes make one too), or that the history is syncing. */
export function statusNotice(state: RunState): RunState['notice'] {
  if (state.connection.syncing && !state.notice) return { text: 'syncing history…', tone: 'muted' };
  return state.notice;
}

/**
 * What codon.next would start: the codon a usage-limit wait holds (codon.next starts it at once),
 * else what the server's last server.idle named (absent from older servers).
 */
export const nextCodonId = (run: RunState['run']): string | undefined =>
  run.usageWait?.codonId ?? run.idle?.nextCodonId;

/**
 * The run's state in a few words (header): rolling back, waiting for approval or a usage limit, ended, plan done,
 * idle and what runs next.
 */
export function runWord(run: RunState['run']): string {
  if (run.isRollingBack) return 'ROLLING BACK';
  if (run.approvalWait) return approvalWaitText(run.approvalWait);
  if (run.usageWait) return USAGE_WAIT_WORD;
  if (run.runStatus && run.runStatus !== 'running' && !idleSinceEnd(run)) return `run ${run.runStatus}`;
  if (run.idle?.reason === 'all-codons-completed') return 'plan done';
  const next = nextCodonId(run);
  if (run.idle) return next ? `idle · next: ${next}` : 'idle';
  return run.runStatus ? `run ${run.runStatus}` : '';
}

/**
 * The server idles after the latest run ended: a later server that found it done begins no run until
 * a codon starts (docs/checkpoints.md#what-runs-next), so its idle, not the old ending, is the news.
 */
export const idleSinceEnd = (run: Pick<RunState['run'], 'idle' | 'endedAt'>): boolean =>
  run.idle !== undefined && run.endedAt !== undefined && Date.parse(run.idle.at) > Date.parse(run.endedAt);

/** What a codon that will not run says (the TUI's codon list, the web overview). */
export const PASSED_OVER = 'passed over';

/**
 * Codons that never ran yet will not run: the server idles with a later codon next (codon.next starts
 * the first codon not done, so every codon before it is done) or with every codon done. Such a codon
 * is an iteration of a loop `until: verify` whose gates passed (docs/checkpoints.md#what-runs-next).
 */
export function passedOverCodons(rows: readonly CodonRow[], idle: RunState['run']['idle']): Set<string> {
  if (!idle) return new Set();
  const all = idle.reason === 'all-codons-completed';
  const nextAt = rows.findIndex((r) => r.codonId === idle.nextCodonId);
  return new Set(
    rows.filter((row, i) => row.status === 'pending' && (all || i < nextAt)).map((row) => row.codonId),
  );
}

/**
 * Our latest message, when it was refused (or could not be sent): the message prompt opens with its
 * text again, so nothing typed is lost. `id`: the command, so it is given back once.
 */
export function refusedMessage(commands: RunState['commands']): { id: string; text: string } | undefined {
  const last = commands.findLast((c) => c.type === 'codon.message');
  return last?.status === 'failed' && last.text !== undefined ? { id: last.id, text: last.text } : undefined;
}

/**
 * What a person can do about the approval wait in progress (docs/review.md#approval-gates): approve,
 * request changes (the codon redone), roll back to the codon's start. Undefined when nothing waits.
 * `canApprove`: the client is in control mode (a readonly one sees the wait, never the keys).
 */
export function approvalChoices(
  run: RunState['run'],
  mode: 'readonly' | 'readandwrite',
): { wait: NonNullable<RunState['run']['approvalWait']>; text: string; canApprove: boolean } | undefined {
  const wait = run.approvalWait;
  if (!wait) return undefined;
  return { wait, text: approvalWaitText(wait), canApprove: mode === 'readandwrite' };
}
