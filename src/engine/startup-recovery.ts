import type { Logger } from 'pino';
import type { ErrorCode, EventInput } from '../core/protocol/index.ts';
import type { CheckpointRecord } from '../execution/checkpoints/index.ts';
import { type EngineState, type RunState, runOf } from '../execution/state/reducer.ts';
import type { TransitionData } from '../execution/state/transitions.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import { type CarriedMessage, describeCarried } from './carry-over.ts';
import type { CodonSteps } from './codon-steps.ts';
import type { ReadyInfo } from './engine.ts';
import { endLeftoverAgents } from './leftover-agents.ts';
import type { OrchestratorOptions } from './orchestrator-options.ts';
import type { Recorder } from './recorder.ts';
import {
  completeUnended,
  describeInterruptedRollback,
  markCrashed,
  recordedShas,
  recoveryPoint,
  setAsideOrphans,
} from './recovery.ts';
import { type RestoreFailure, restoreErrorCode } from './rollback.ts';
import type { RollbackTarget } from './rollback-target.ts';
import { unreportedSpend } from './unreported-spend.ts';
import { lineageOf, progress, recoveryCodon } from './what-next.ts';

export type StartupDeps = Pick<
  OrchestratorOptions,
  | 'bus'
  | 'checkpoints'
  | 'adapters'
  | 'agentStateDir'
  | 'stopGraceMs'
  | 'autostart'
  | 'lastCodonEvent'
  | 'interruptedRollback'
  | 'carryOver'
> & {
  state: () => EngineState;
  codons: readonly RuntimeCodon[];
  recorder: Recorder;
  steps: CodonSteps;
  logger: Logger;
  /** Brings the agent root back to the recovery point: a run switch into the run this server began. */
  goBack: (
    fromRun: string,
    lineage: readonly CheckpointRecord[],
    target: RollbackTarget,
  ) => Promise<{ ok: true } | RestoreFailure>;
};

/** What the orchestrator goes on with once the recovery is done. */
export type Startup = {
  /** Texts a crash kept from an agent (or a redo it interrupted), by codon: its next start's prompt takes them. */
  carried: Map<string, CarriedMessage[]>;
  /** What server.ready says this server resumed (absent on an execution's first start). */
  resumed?: ReadyInfo['resumed'];
  /** `info` messages to publish in this server's run: texts kept for a codon that no crash warning named. */
  notes: string[];
  /**
   * This server's run, not begun yet: the execution's completed run stays current until a codon
   * starts (beginRun), so a start that runs nothing leaves no run.
   */
  pendingRun?: string;
};

/**
 * A server's start, in one function: it ends agents a previous server left running, closes the run
 * it left open (crashed, its codon ended failed, what git holds beyond the record set aside), brings
 * a run that did not end well back to its last clean point, and begins this server's run. The
 * orchestrator then takes what it returns, publishes its notes and a snapshot, and decides what runs
 * next.
 */
export async function recoverAtStartup(d: StartupDeps): Promise<Startup> {
  const runId = d.bus.runId;
  const leftover = await endLeftoverAgents(d.agentStateDir, d.stopGraceMs, d.logger);
  const previousId = d.state().runOrder.at(-1);
  const before = previousId ? runOf(d.state(), previousId) : undefined;
  // A rollback that never switched runs (the server stopped in it, or it failed) may have half
  // rewritten the agent root: even a run that ended well then goes back to its last checkpoint.
  const cutShort =
    before?.status === 'running' || before?.status === 'completed'
      ? d.interruptedRollback?.(before.runId)
      : undefined;
  const rollbackNote = cutShort ? describeInterruptedRollback(cutShort) : undefined;
  // Where a run that did not end well goes back to: its last clean point the state recorded. What
  // git holds beyond it (a kill between a commit and its record) is set aside first, and said.
  const point =
    before && (before.status !== 'completed' || cutShort)
      ? await recoveryPoint(d.checkpoints, before, recordedShas(d.state()))
      : undefined;
  const orphans =
    before && point?.ok ? await setAsideOrphans(d.checkpoints, before.runId, point.value) : undefined;
  const found = [orphans, rollbackNote].filter((n) => n !== undefined).join('; ') || undefined;
  let carried: Map<string, CarriedMessage[]>;
  let told: string | undefined;
  if (before?.status === 'running') {
    // The crashed run's own end (its codon's codon.completed) is journaled as part of that run.
    d.bus.setRunId(before.runId);
    try {
      if (d.lastCodonEvent) await completeUnended(d.recorder, d.state(), before.runId, d.lastCodonEvent);
      carried = d.carryOver?.() ?? new Map();
      told = await markCrashed(
        d.recorder,
        d.state(),
        before.runId,
        leftover.ended,
        (codonId) => {
          const kept = carried.get(codonId);
          return kept ? describeCarried(codonId, kept) : undefined;
        },
        (codonId, agentCost) => {
          // The codon's last agent run: a feedback round's entry replaces its first round's.
          const entry = leftover.sessions.findLast((e) => e.codonId === codonId);
          return entry ? unreportedSpend(entry, agentCost, d.adapters, d.agentStateDir) : 0;
        },
        found,
      );
      await warn(d.recorder, foundWarning(told, found, rollbackNote));
    } finally {
      d.bus.setRunId(runId);
    }
  } else {
    carried = d.carryOver?.() ?? new Map();
    await warn(
      d.recorder,
      rollbackNote
        ? { code: 'CHECKPOINT_WARNING', message: `a rollback did not finish: ${found}` }
        : foundWarning(undefined, found, undefined),
    );
  }
  const previous = previousId ? runOf(d.state(), previousId) : undefined;
  const recovered = previous ? await goBack(d, previous, point, cutShort !== undefined) : false;
  // A run that ended well stays the latest, this server's events going on under it, until a codon
  // starts; unless one starts at once (autostart with a codon left).
  const pending =
    !recovered &&
    previous?.status === 'completed' &&
    !(d.autostart && progress(d.codons, lineageOf(d.state())).next !== undefined);
  if (pending) d.bus.setRunId(previous.runId);
  else if (!recovered) await beginRun(d, runId);
  const resumed = resumedInfo(d.codons, d.state(), previous, recovered);
  // What no crash warning named (a redo the crash interrupted, an earlier crash's): said in this run.
  const notes = [...carried]
    .filter(([codonId]) => codonId !== told)
    .map(
      ([codonId, kept]) =>
        `a server stopped before codon ${codonId} ran again: ${describeCarried(codonId, kept)}`,
    );
  return { carried, notes, ...(resumed ? { resumed } : {}), ...(pending ? { pendingRun: runId } : {}) };
}

/**
 * Begins run `runId` after the execution's latest run (RunStarted, then its checkpoint branch) and
 * journals what follows under it: at a server's start, or, when that start found a completed run,
 * before its first codon.
 */
export async function beginRun(
  d: Pick<StartupDeps, 'bus' | 'recorder' | 'steps' | 'state'>,
  runId: string,
): Promise<void> {
  const previousId = d.state().runOrder.at(-1);
  d.bus.setRunId(runId);
  await d.recorder.apply(
    'RunStarted',
    runStarted(runId, previousId ? runOf(d.state(), previousId) : undefined, d.state()),
  );
  await d.steps.startCheckpointRun(runId);
}

/**
 * A crashed or failed run goes back to its last clean point, so the codon that broke starts again
 * from a clean tree, as does a completed one a rollback was `cutShort` in; true when it did (the run
 * this server began is then under way already).
 */
async function goBack(
  d: StartupDeps,
  previous: RunState,
  point: Awaited<ReturnType<typeof recoveryPoint>> | undefined,
  cutShort: boolean,
): Promise<boolean> {
  const broke = previous.status === 'crashed' || previous.status === 'failed';
  if (!broke && !(cutShort && previous.status === 'completed')) return false;
  if (!point?.ok) {
    await d.recorder.reportError(
      'CHECKPOINT_FAILED',
      `recovery found no checkpoint of run ${previous.runId} to return to: ${point?.error.message ?? 'none was looked for'}`,
      'warning',
    );
    return false;
  }
  const startOf = recoveryCodon(lineageOf(d.state(), previous.runId), previous.interruptedCodonId);
  const moved = await d.goBack(previous.runId, point.value.lineage, {
    target: point.value.target,
    ...(startOf ? { startOf } : {}),
  });
  if (!moved.ok)
    await d.recorder.reportError(
      restoreErrorCode(moved),
      `recovery could not restore the agent root: ${moved.message}; the run goes on from the tree as it is`,
      'fatal',
    );
  return moved.ok;
}

async function warn(recorder: Recorder, warning: { code: ErrorCode; message: string } | undefined) {
  if (warning) await recorder.reportError(warning.code, warning.message, 'warning');
}

/**
 * What the restart found of a crash (orphan checkpoints, a rollback cut short) and no crash warning
 * said (`told`: the codon whose warning carried it), as a warning of its own. Pure.
 */
export function foundWarning(
  told: string | undefined,
  found: string | undefined,
  rollbackNote: string | undefined,
): { code: ErrorCode; message: string } | undefined {
  if (told || !found) return undefined;
  return rollbackNote
    ? { code: 'RUN_CRASHED', message: `the server stopped during a rollback: ${found}` }
    : { code: 'CHECKPOINT_WARNING', message: found };
}

/**
 * This server's run, when no recovery began it: after a crash a recovery run, else a start; a run
 * that ended at the start of a codon (a rollback, then a shutdown) is still there. Pure.
 */
export function runStarted(
  runId: string,
  previous: RunState | undefined,
  state: EngineState,
): TransitionData<'RunStarted'> {
  const startOf = previous ? lineageOf(state, previous.runId).atStartOf : undefined;
  return {
    runId,
    startedAt: new Date().toISOString(),
    reason: previous?.status === 'crashed' ? 'recovery' : 'start',
    ...(previous ? { fromRunId: previous.runId } : {}),
    ...(startOf ? { startOf } : {}),
  };
}

/** What server.ready says of the execution this server resumed: its runs, its progress, how the last ended. Pure. */
export function resumedInfo(
  codons: readonly RuntimeCodon[],
  state: EngineState,
  previous: RunState | undefined,
  recovered: boolean,
): ReadyInfo['resumed'] {
  if (!previous || previous.status === 'running') return undefined;
  const p = progress(codons, lineageOf(state));
  return {
    runCount: state.runOrder.length,
    done: p.done,
    total: p.total,
    ...(p.next ? { nextCodonId: p.next } : {}),
    previousRunStatus: previous.status,
    recovered,
  };
}

/**
 * What each new client is told while a crash left a codon unfinished and this server has run none
 * since (its run is a recovery at that codon's start): the incomplete.codon event, or undefined. Pure.
 */
export function incompleteCodon(
  state: EngineState,
  codons: readonly RuntimeCodon[],
): EventInput<'incomplete.codon'> | undefined {
  const run = state.currentRunId ? runOf(state, state.currentRunId) : undefined;
  if (run?.reason !== 'recovery') return undefined;
  // The run before it in the journal crashed.
  const at = state.runOrder.indexOf(run.runId);
  const before = at > 0 ? runOf(state, state.runOrder[at - 1] ?? '') : undefined;
  if (before?.status !== 'crashed') return undefined;
  const codonId = lineageOf(state).atStartOf;
  const codon = codonId === undefined ? undefined : codons.find((c) => c.id === codonId);
  if (!codon) return undefined;
  return {
    codonId: codon.id,
    codonName: codon.name,
    message: 'this codon was interrupted when the server stopped; codon.redo (or codon.next) runs it again',
  };
}
