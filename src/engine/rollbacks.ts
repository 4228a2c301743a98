import type { ErrorCode } from '../core/protocol/index.ts';
import type { CheckpointRecord } from '../execution/checkpoints/index.ts';
import type { EventBus } from '../execution/journal/event-bus.ts';
import { type EngineState, latestRunId } from '../execution/state/reducer.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { Checkpointing } from './checkpointing.ts';
import type { CodonSteps } from './codon-steps.ts';
import type { CommandContext } from './engine.ts';
import type { PhaseChange, RollbackBy } from './orchestrator-phase.ts';
import type { Recorder } from './recorder.ts';
import { type RestoreFailure, type RollbackDeps, restoreErrorCode } from './rollback.ts';
import type { RollbackAdmission } from './rollback-admission.ts';
import { type RollbackCommand, type RollbackTarget, resolveRollbackTarget } from './rollback-target.ts';
import { switchRun } from './run-switch.ts';
import type { Trigger } from './what-next.ts';

export type Moved = { ok: true } | { ok: false; code: ErrorCode; message: string };

/** What the rollbacks use of the orchestrator: its state, its phase, its snapshots and its decision. */
export type RollbackHost = {
  planName: string;
  codons: readonly RuntimeCodon[];
  state: () => EngineState;
  checkpoints: Checkpointing;
  recorder: Recorder;
  steps: CodonSteps;
  bus: EventBus;
  newRunId: () => string;
  rollback: RollbackDeps;
  admission: RollbackAdmission;
  stopping: () => boolean;
  /** The active codon's id, if one runs. */
  active: () => string | undefined;
  /** The orchestrator's phase change (its one place). */
  change: (change: PhaseChange) => void;
  snapshot: () => Promise<unknown>;
  proceed: (trigger: Trigger) => Promise<void>;
};

/**
 * The three ways into a rollback: a client's rollback command at its turn, a sentinel's rollback
 * or redo at its codon's end, and a server start's recovery. Each is rolling back (the phase says
 * so, and the server refuses state changes) from its start until its run switch is done, or it is
 * refused; what follows it is asked of the rules then.
 */
export class Rollbacks {
  readonly #h: RollbackHost;

  constructor(host: RollbackHost) {
    this.#h = host;
  }

  /** A rollback command's turn: it no longer waits; it runs or is refused, then the rules decide. */
  async commandTurn(command: RollbackCommand, ctx: CommandContext): Promise<void> {
    const h = this.#h;
    h.admission.commandTurn();
    const moved = await this.#rollingBack('client', async (): Promise<Moved | undefined> => {
      if (h.stopping()) {
        ctx.fail('SHUTTING_DOWN', 'the server is shutting down; no new work is taken');
        return undefined;
      }
      const active = h.active();
      if (active) {
        ctx.fail(
          'CODON_RUNNING',
          `codon ${active} is running; stop it with codon.forceStop (or codon.skip) first, then roll back`,
        );
        return undefined;
      }
      return this.#rollbackTo(command);
    });
    if (!moved) return;
    if (!moved.ok) return ctx.fail(moved.code, moved.message);
    await h.proceed({ kind: 'rollback', autoRestart: command.data.autoRestart });
  }

  /** A sentinel's (or a review's redo): back to codon `codonId`'s start (a new run, as rollback.toCodon start). */
  toStart(codonId: string, by: RollbackBy = 'sentinel'): Promise<Moved> {
    return this.#rollingBack(by, () =>
      this.#rollbackTo({
        id: `${by === 'client' ? 'review' : by}-${codonId}`,
        type: 'rollback.toCodon',
        data: { codonId, checkpointType: 'start', autoRestart: false },
      }),
    );
  }

  /** A server start's: back to a crashed or failed run's last clean point, in the run this server began. */
  recover(
    fromRun: string,
    lineage: readonly CheckpointRecord[],
    target: RollbackTarget,
    autoRestart: boolean,
  ): Promise<{ ok: true } | RestoreFailure> {
    return this.#rollingBack('recovery', () =>
      this.#switch(fromRun, lineage, target, 'recovery', autoRestart),
    );
  }

  /** Rolling back from now; the run switch ends it early, else (a refusal) this does once `work` is done. */
  async #rollingBack<T>(by: RollbackBy, work: () => Promise<T>): Promise<T> {
    this.#h.change({ kind: 'rollback-begins', by });
    try {
      return await work();
    } finally {
      this.#h.change({ kind: 'rollback-ends' });
    }
  }

  /** Resolves a rollback command's target and moves there (a new run); a failed move is also reported. */
  async #rollbackTo(command: RollbackCommand): Promise<Moved> {
    const h = this.#h;
    const fromRun = latestRunId(h.state());
    if (!fromRun) throw new Error('no current run');
    const lineage = await h.checkpoints.lineage(fromRun);
    if (!lineage.ok) return { ok: false, ...lineage.error };
    const resolved = await resolveRollbackTarget(
      command,
      lineage.value,
      h.checkpoints,
      h.codons.map((c) => c.id),
      h.planName,
    );
    if (!resolved.ok) return { ok: false, ...resolved.error };
    const { autoRestart } = command.data;
    const moved = await this.#switch(fromRun, lineage.value, resolved.value, command.type, autoRestart);
    if (!moved.ok) {
      const message = `rollback to ${resolved.value.target.sha.slice(0, 12)} failed: ${moved.message}`;
      const code = restoreErrorCode(moved);
      await h.recorder.reportError(code, message, 'operation');
      return { ok: false, code, message };
    }
    return { ok: true };
  }

  /** The run switch, with snapshots around it: the one after it no longer shows a rollback. */
  async #switch(
    fromRun: string,
    lineage: readonly CheckpointRecord[],
    target: RollbackTarget,
    requested: string,
    autoRestart: boolean,
  ): Promise<{ ok: true } | RestoreFailure> {
    const h = this.#h;
    try {
      await h.snapshot();
      return await switchRun(h, { fromRun, lineage, target, requested, autoRestart });
    } finally {
      h.change({ kind: 'rollback-ends' });
      await h.snapshot();
    }
  }
}
