import type { CheckpointType, ErrorCode, FailureReason } from '../core/protocol/index.ts';
import { codonOf, costOfCodon, reduce, runOf } from '../execution/state/reducer.ts';
import type { Transition, TransitionData } from '../execution/state/transitions.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { Started } from './codon-phase.ts';
import type { CodonSteps } from './codon-steps.ts';
import { changedPaths, describeChange, type Fingerprint, fingerprintDir } from './data-fingerprint.ts';
import type { LifecycleOptions } from './lifecycle-options.ts';
import { type CodonOutcome, classifyOutcome, errorCodeOf } from './outcome/failure.ts';
import type { EndStatus } from './what-next.ts';

/** What recording a codon's end needs. */
export type EndDeps = Pick<
  LifecycleOptions,
  'state' | 'recorder' | 'steps' | 'hooks' | 'dataDir' | 'snapshot' | 'unreportedSpend'
>;

/** How a codon whose agent ran ended, before its checkpoint is taken. Pure. */
export function endStatusOf(outcome: CodonOutcome, success: boolean): EndStatus {
  if (outcome.stoppedBy === 'skip') return 'skipped';
  if (outcome.stoppedBy === 'forceStop') return 'stopped';
  return success ? 'completed' : 'failed';
}

/**
 * Records the end of a codon whose agent ran (`started`: as it began; undefined when it is not the
 * active codon): the end checkpoint, the archive after a success, the final cost and
 * codon.completed. Returns how it ended.
 */
export async function recordAgentEnd(
  d: EndDeps,
  codon: RuntimeCodon,
  runId: string,
  outcome: CodonOutcome,
  started: Started | undefined,
): Promise<EndStatus> {
  const { recorder, steps } = d;
  const dataBefore = started?.dataBefore;
  // The codon's processes have ended: the data directory is walked while the checkpoint is taken.
  const dataAfter = dataBefore === undefined ? undefined : fingerprint(d.dataDir);
  const duration = started ? Date.now() - started.startedAt : 0;
  let { success, failureReason } = classifyOutcome(outcome);
  let to = endStatusOf(outcome, success);
  const checkpointType: CheckpointType =
    to === 'completed' ? 'completed' : to === 'skipped' ? 'skipped' : 'error';
  // Recorded below with the codon's end, in one transaction: a kill in between leaves a commit the
  // state never recorded, which recovery sets aside, and the codon runs again from its start.
  const checkpoint = await steps.commit(codon, runId, checkpointType, to);
  if (!checkpoint.ok && success) {
    // A step that cannot be undone is not a clean success.
    success = false;
    to = 'failed';
    failureReason = {
      type: 'unknown',
      retriable: false,
      message: `the completed checkpoint could not be written: ${checkpoint.error.message}`,
    };
  }
  // The completed checkpoint holds what the archive then moves: a rollback never loses it.
  if (success && checkpoint.ok) {
    // Before the archive, which may move the same files away.
    await steps.copyOutputs(codon);
    const archived = await steps.archive(codon, runId);
    if (archived) await steps.recordArchive({ ...archived, checkpointSha: checkpoint.value.record.sha });
  }
  await recordEnd(d, checkpoint, {
    runId,
    codonId: codon.id,
    from: 'running',
    to,
    at: new Date().toISOString(),
    exitStatus: outcome.exit,
    duration,
    ...(failureReason ? { failureReason } : {}),
    ...(started?.agentSessionId ? { agentSessionId: started.agentSessionId } : {}),
  });
  await d.hooks.afterAgent(codon, runId);
  await checkDataDir(d, codon, dataBefore, dataAfter);
  // Answers the proxy metered that an agent cut short never reported were spent. An agent that ended
  // by itself has reported all it will, in its own prices: its word stands.
  const metered = outcome.stoppedBy ? (d.unreportedSpend?.(codon.id) ?? 0) : 0;
  if (metered > 0 && codonOf(runOf(d.state(), runId), codon.id))
    await recorder.apply('CostsIncremented', { runId, codonId: codon.id, amount: metered, source: 'agent' });
  // The final cost and codon.completed in one commit (one fsync, not two), in that order.
  const spent = codonOf(runOf(d.state(), runId), codon.id);
  const finalCost: Transition[] = spent
    ? [
        {
          type: 'CodonFinalCostSet',
          data: { runId, codonId: codon.id, cost: spent.agentCost + spent.sentinelCost },
        },
      ]
    : [];
  const settled = finalCost.reduce(reduce, d.state());
  await recorder.applyAll(finalCost, [
    {
      type: 'codon.completed',
      data: {
        codonId: codon.id,
        success,
        ...costOfCodon(codonOf(runOf(settled, runId), codon.id)),
        duration,
        exitStatus: outcome.exit,
        ...(failureReason ? { failureReason } : {}),
      },
    },
  ]);
  if (!success && to !== 'skipped') {
    await codonError(
      d,
      codon,
      `${to === 'stopped' ? 'was stopped' : 'failed'}: ${failureReason?.message ?? 'no reason given'}`,
      errorCodeOf(failureReason, outcome.stalledAfterMs !== undefined),
      failureReason?.type,
    );
  }
  return to;
}

/** A codon that ends before its agent started (or could start): why, and what it found in the data directory. */
export type EndWithoutAgent = {
  failureReason: FailureReason;
  code: ErrorCode;
  /** ['failed'] */
  to?: 'failed' | 'skipped' | 'stopped';
  /** ['preparing'] */
  from?: 'preparing' | 'running';
  dataBefore: Fingerprint | undefined;
};

/** Fails a codon whose agent never started (a sentinel or rig setup refused it, a stop, a failed start). */
export async function recordEndWithoutAgent(
  d: EndDeps,
  codon: RuntimeCodon,
  runId: string,
  end: EndWithoutAgent,
): Promise<EndStatus> {
  const { failureReason, code, to = 'failed', from = 'preparing' } = end;
  await checkDataDir(d, codon, end.dataBefore);
  // No agent ran: exit status `error` with code 1, by convention.
  const exitStatus = { type: 'error' as const, code: 1 };
  const checkpoint = await d.steps.commit(codon, runId, to === 'skipped' ? 'skipped' : 'error', to);
  await recordEnd(d, checkpoint, {
    runId,
    codonId: codon.id,
    from,
    to,
    at: new Date().toISOString(),
    exitStatus,
    failureReason,
    duration: 0,
  });
  await d.recorder.publish('codon.completed', {
    codonId: codon.id,
    success: false,
    cost: 0,
    duration: 0,
    exitStatus,
    failureReason,
  });
  if (to !== 'skipped')
    await codonError(
      d,
      codon,
      `${to === 'stopped' ? 'was stopped' : 'failed'} before its agent started: ${failureReason.message ?? failureReason.type}`,
      code,
      failureReason.type,
    );
  await d.snapshot();
  return to;
}

/** The data directory's fingerprint now (none without a data directory); never rejects. */
export function fingerprint(dataDir: string | undefined): Promise<Fingerprint | undefined> {
  return dataDir === undefined ? Promise.resolve(undefined) : fingerprintDir(dataDir).catch(() => undefined);
}

/**
 * A codon's end and its end checkpoint in one transaction: a kill before it leaves a commit the
 * state never recorded, which recovery sets aside (recovery.ts), and the codon counts as interrupted.
 */
function recordEnd(
  d: EndDeps,
  checkpoint: Awaited<ReturnType<CodonSteps['commit']>>,
  data: TransitionData<'CodonTransitioned'>,
): Promise<unknown> {
  const created = checkpoint.ok ? [checkpoint.value.created] : [];
  return d.recorder.applyAll([...created, { type: 'CodonTransitioned', data }]);
}

/** The journaled `error` (severity codon) that goes with a codon that did not end well. */
function codonError(
  d: EndDeps,
  codon: RuntimeCodon,
  what: string,
  code: ErrorCode,
  context: string | undefined,
): Promise<unknown> {
  // A usage limit the run deals with by itself (a wait for the reset, a fallbackAgent) asks nothing of a person.
  const handled =
    context === 'usage-limit' &&
    (codon.onUsageLimit.then === 'wait' || codon.onUsageLimit.fallbackAgent !== undefined);
  return d.recorder.publish('error', {
    message: `codon ${codon.id} ${what}`,
    codon: codon.id,
    fatal: false,
    severity: handled ? 'warning' : 'codon',
    code,
    ...(context ? { context } : {}),
  });
}

/**
 * A warning when the data directory changed since the codon began (a shell command wrote there).
 * `taken`: its fingerprint, walked since the codon's processes ended; else it is walked now.
 */
async function checkDataDir(
  d: EndDeps,
  codon: RuntimeCodon,
  before: Fingerprint | undefined,
  taken?: Promise<Fingerprint | undefined>,
): Promise<void> {
  const dir = d.dataDir;
  if (before === undefined || dir === undefined) return;
  const after = await (taken ?? fingerprint(dir));
  if (after === undefined) return;
  const changed = changedPaths(before, after);
  if (changed.length === 0) return;
  await d.recorder.reportError(
    'DATA_DIR_CHANGED',
    describeChange(dir, codon.id, changed),
    'warning',
    codon.id,
  );
}
