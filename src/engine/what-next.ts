import type { CheckpointInfo, EventInput } from '../core/protocol/index.ts';
import type { CheckpointRecord } from '../execution/checkpoints/index.ts';
import { type EngineState, latestRunId, type RunState, runOf } from '../execution/state/reducer.ts';
import { type LineageEntry, lineageEntries } from './checkpoint-list.ts';

/**
 * What runs next: the one place for the rules of codon.next, codon.redo, autostart and resuming
 * after a crash or failure. Pure functions of the plan and the current run's lineage; the
 * orchestrator asks them and keeps no run flags of its own: its phase (open, rolling back, stopping)
 * is one union, orchestrator-phase.ts (docs/checkpoints.md#what-runs-next).
 */

export type EndStatus = 'completed' | 'failed' | 'skipped' | 'stopped';
export type Ending = { codonId: string; status: EndStatus };

export type Lineage = {
  /** How codons ended in the current lineage (inherited from earlier runs up to the fork, then own), oldest first. */
  endings: Ending[];
  /** Set while the run has started no codon of its own yet and began at the start of this codon (a rollback to its start, or a recovery). */
  atStartOf?: string;
};

/**
 * A plan codon as the rules see it: its runtime id, what its plan says after a last failed attempt,
 * and its place in a loop if it is in one.
 */
type PlanCodon = {
  id: string;
  onFailure?: { then: 'idle' | 'continue' | 'abort' };
  loop?:
    | {
        id: string;
        iteration: number;
        iterations: number;
        lastInIteration: boolean;
        until?: 'verify' | undefined;
      }
    | undefined;
};
export type IdleReason = EventInput<'server.idle'>['reason'];

/** Checkpoint types that record how a codon ended. */
export const ENDING_TYPES: ReadonlySet<CheckpointInfo['checkpointType']> = new Set([
  'completed',
  'error',
  'skipped',
]);

const isEndStatus = (status: string | undefined): status is EndStatus =>
  status === 'completed' || status === 'failed' || status === 'skipped' || status === 'stopped';

function endingOf(info: CheckpointInfo): Ending | undefined {
  if (!ENDING_TYPES.has(info.checkpointType)) return undefined;
  const status = info.status;
  if (isEndStatus(status)) return { codonId: info.codonId, status };
  // An error checkpoint of a codon recorded in another state still means it did not end well.
  return { codonId: info.codonId, status: info.checkpointType === 'skipped' ? 'skipped' : 'failed' };
}

const endingsOf = (entries: readonly LineageEntry[]): Ending[] =>
  entries.flatMap((e) => {
    const ending = e.info && endingOf(e.info);
    return ending ? [ending] : [];
  });

/**
 * The lineage of a run as the recorded state has it (its checkpoints, with those it inherited), and
 * the end of its latest codon when that codon's ending checkpoint could not be written.
 */
export function lineageOf(state: EngineState, runId: string | null = latestRunId(state)): Lineage {
  const run = runId ? runOf(state, runId) : undefined;
  if (!run || !runId) return { endings: [] };
  const endings = endingsOf(lineageEntries(state, runId));
  const unrecorded = unrecordedEnding(run, endings);
  return {
    endings: unrecorded ? [...endings, unrecorded] : endings,
    ...(run.startOf && run.order.length === 0 ? { atStartOf: run.startOf } : {}),
  };
}

/**
 * Every codon's end takes a checkpoint, so the run's latest codon ended (as its record says) without
 * being the last ending only when that checkpoint could not be written (a full checkpoint store). It
 * still ended (failed): server.idle, the rules and the run's summary count it, else a run waits for
 * ever on an end it never sees. A crash's interrupted codon is not one: the next server recovers it.
 */
function unrecordedEnding(run: RunState, endings: readonly Ending[]): Ending | undefined {
  const codonId = run.order.at(-1);
  const status = codonId === undefined ? undefined : run.codons[codonId]?.status;
  if (codonId === undefined || codonId === run.interruptedCodonId || !isEndStatus(status)) return undefined;
  const last = endings.at(-1);
  return last?.codonId === codonId && last.status === status ? undefined : { codonId, status };
}

/** The lineage as it stood at one checkpoint of a run's history (where a rollback to it goes back to). */
export function lineageAt(state: EngineState, runId: string, sha: string): Lineage {
  const entries = lineageEntries(state, runId);
  const at = entries.findIndex((e) => e.sha === sha);
  return { endings: endingsOf(at >= 0 ? entries.slice(0, at + 1) : entries) };
}

/** A codon is done when it last ended completed or skipped in the lineage. */
export function isDone(lineage: Lineage, codonId: string): boolean {
  const last = lineage.endings.findLast((e) => e.codonId === codonId);
  return last?.status === 'completed' || last?.status === 'skipped';
}

/**
 * Codons settled in the lineage: done, or passed over in a loop `until: verify`, whose iterations
 * are attempts at passing the gates of its last codon:
 * - once an iteration's last codon last ended completed (its gates passed), the whole loop;
 * - an iteration (not the loop's last) whose last codon failed: that attempt is over;
 * - an iteration earlier than one with a codon that ended: the run has moved on past it.
 */
function settledIn(plan: readonly PlanCodon[], lineage: Lineage): (c: PlanCodon) => boolean {
  // How each codon last ended, in one pass: a long loop's plan and lineage grow together, and a
  // search of the endings per plan codon made every decision quadratic in the codons run.
  const lastEnded = new Map<string, EndStatus>();
  for (const e of lineage.endings) lastEnded.set(e.codonId, e.status);
  const lastStatus = (id: string) => lastEnded.get(id);
  const done = (id: string) => {
    const status = lastEnded.get(id);
    return status === 'completed' || status === 'skipped';
  };
  const passed = new Set<string>();
  const over = new Set<string>();
  const reached = new Map<string, number>();
  for (const c of plan) {
    const loop = c.loop;
    if (loop?.until !== 'verify') continue;
    const status = lastStatus(c.id);
    if (status === undefined) continue;
    reached.set(loop.id, Math.max(reached.get(loop.id) ?? -1, loop.iteration));
    if (!loop.lastInIteration) continue;
    if (status === 'completed') passed.add(loop.id);
    if (status === 'failed' && loop.iteration < loop.iterations - 1) over.add(`${loop.id}#${loop.iteration}`);
  }
  return (c) => {
    if (done(c.id)) return true;
    const loop = c.loop;
    if (loop?.until !== 'verify') return false;
    return (
      passed.has(loop.id) ||
      over.has(`${loop.id}#${loop.iteration}`) ||
      loop.iteration < (reached.get(loop.id) ?? -1)
    );
  };
}

/** codon.next: the first codon of the plan not settled in the lineage; undefined when the plan is done. */
export function nextCodon<C extends PlanCodon>(plan: readonly C[], lineage: Lineage): C | undefined {
  const settled = settledIn(plan, lineage);
  return plan.find((c) => !settled(c));
}

/**
 * A codon passed over: it last ended failed and its plan says `onFailure.then: continue`. The engine
 * goes on past it by itself; codon.next still names it (a person asking for the next codon gets the
 * first one not done), and it is done once it runs again and completes, or is skipped.
 */
export function isPassedOver(lineage: Lineage, codon: PlanCodon): boolean {
  if (codon.onFailure?.then !== 'continue') return false;
  return lineage.endings.findLast((e) => e.codonId === codon.id)?.status === 'failed';
}

/** What the engine starts by itself (autostart, skip, then: continue): the first codon neither done nor passed over. */
export function automaticNext<C extends PlanCodon>(plan: readonly C[], lineage: Lineage): C | undefined {
  const settled = settledIn(plan, lineage);
  return plan.find((c) => !settled(c) && !isPassedOver(lineage, c));
}

/** Codons passed over while nothing else is left to run by itself: the plan ran to its end without them. */
export function passedOverAtEnd(plan: readonly PlanCodon[], lineage: Lineage): string[] {
  if (automaticNext(plan, lineage)) return [];
  const settled = settledIn(plan, lineage);
  return plan.filter((c) => !settled(c) && isPassedOver(lineage, c)).map((c) => c.id);
}

/** codon.redo: right after a rollback to a codon's start, that codon; else the codon that ended last. */
export function redoCodon(lineage: Lineage): string | undefined {
  return lineage.atStartOf ?? lineage.endings.at(-1)?.codonId;
}

/** `done` counts the codons settled: done, or passed over in a loop `until: verify`. */
export type Progress = { done: number; total: number; next?: string; lastEnded?: Ending };

export function progress(plan: readonly PlanCodon[], lineage: Lineage): Progress {
  const next = nextCodon(plan, lineage);
  const lastEnded = lineage.endings.at(-1);
  const settled = settledIn(plan, lineage);
  return {
    done: plan.filter(settled).length,
    total: plan.length,
    ...(next ? { next: next.id } : {}),
    ...(lastEnded ? { lastEnded } : {}),
  };
}

/** What the engine is deciding after: a server start, a codon's end, a rollback. */
export type Trigger =
  | { kind: 'startup'; autostart: boolean }
  | {
      kind: 'codon-ended';
      status: EndStatus;
      autostart: boolean;
      /** The codon failed for the last time and its plan says `then: continue`: go on past it. */
      passOver?: boolean;
    }
  | { kind: 'rollback'; autoRestart: boolean };

export type Decision<C> = { start: C } | { idle: IdleReason };

/**
 * The one decision of what happens next. Starts a codon only when there is one left and the trigger
 * asks for it: autostart at startup or after a success (or after a failed iteration of a loop
 * `until: verify`), codon.skip and a failure passed over (`then: continue`; both move on whatever
 * autostart says), autoRestart after a rollback. What it starts is the first codon neither settled
 * nor passed over. Otherwise idles with the reason a client needs.
 */
export function decide<C extends PlanCodon>(
  trigger: Trigger,
  plan: readonly C[],
  lineage: Lineage,
): Decision<C> {
  const next = nextCodon(plan, lineage);
  if (!next) return { idle: 'all-codons-completed' };
  const go =
    trigger.kind === 'startup'
      ? trigger.autostart
      : trigger.kind === 'rollback'
        ? trigger.autoRestart
        : trigger.status === 'skipped' ||
          trigger.passOver === true ||
          (trigger.autostart && (trigger.status === 'completed' || failedAttempt(plan, lineage)));
  const auto = go ? automaticNext(plan, lineage) : undefined;
  if (auto) return { start: auto };
  return { idle: trigger.kind === 'startup' ? 'startup' : 'codon-completed' };
}

/**
 * The codon that ended last failed, and the rules pass over it: an iteration of a loop `until:
 * verify` that did not pass, so autostart goes on with the next iteration.
 */
function failedAttempt(plan: readonly PlanCodon[], lineage: Lineage): boolean {
  const last = lineage.endings.at(-1);
  const codon = last?.status === 'failed' ? plan.find((c) => c.id === last.codonId) : undefined;
  return codon !== undefined && settledIn(plan, lineage)(codon);
}

/** The server.idle event for a reason: the message and the optional fields say what the rules say. */
export function idleEvent(
  reason: IdleReason,
  plan: { name: string; codons: readonly PlanCodon[] },
  lineage: Lineage,
): EventInput<'server.idle'> {
  const p = progress(plan.codons, lineage);
  const redo = redoCodon(lineage);
  const redoable = redo !== undefined && redo !== p.next && plan.codons.some((c) => c.id === redo);
  const after = p.lastEnded ? `${p.lastEnded.codonId} ${p.lastEnded.status}; ` : '';
  const passedOver = p.next ? passedOverAtEnd(plan.codons, lineage) : [];
  const over = passedOver.length > 0 ? `${passedOver.join(', ')} failed and passed over; ` : '';
  const message = !p.next
    ? `all ${p.total} codons of plan "${plan.name}" are done`
    : `idle; ${after}${over}${p.done} of ${p.total} codons done; codon.next starts ${p.next}${redoable ? `, codon.redo runs ${redo}` : ''}`;
  return {
    reason,
    message,
    ...(passedOver.length > 0 ? { passedOver } : {}),
    ...(p.next ? { nextCodonId: p.next } : {}),
    ...(p.lastEnded ? { lastEnded: p.lastEnded } : {}),
  };
}

/**
 * Where a crashed or failed run is brought back to before the server goes on: its latest clean
 * point (a codon's completed or skipped checkpoint, or a run's initial one), so the codon that broke
 * starts again from a clean tree. `records` is the run's lineage from the checkpoint store, oldest first.
 */
export function recoveryTarget(records: readonly CheckpointRecord[]): CheckpointRecord | undefined {
  return records.findLast(
    (c) => c.initial || c.checkpointType === 'completed' || c.checkpointType === 'skipped',
  );
}

/**
 * The codon a recovery returns to the start of: the one the crash interrupted, the one the run
 * itself began at the start of (if it ran none), or the run's last ending when it failed or was
 * stopped. Undefined when the run ended well.
 */
export function recoveryCodon(lineage: Lineage, interrupted: string | undefined): string | undefined {
  if (interrupted) return interrupted;
  if (lineage.atStartOf) return lineage.atStartOf;
  const last = lineage.endings.at(-1);
  return last && (last.status === 'failed' || last.status === 'stopped') ? last.codonId : undefined;
}
