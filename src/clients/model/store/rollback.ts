import type { ServerEvent } from '../../../core/protocol/index.ts';
import { markUndone } from './codons.ts';
import type { RollbackView, RunState } from './run-state.ts';

/**
 * Rollback progress as the server reports it (spec 3.2, 6.2), and the answer to our request. The codons
 * it undoes (rollback.started codonsToProcess, one rollback.codonCheckpoint each) change only once
 * rollback.completed says the new run goes on without them: a rollback that fails half way undid nothing.
 */

type RollbackEvent = Extract<ServerEvent, { type: `rollback.${string}` }>;

const short = (sha: string) => sha.slice(0, 8);

function log(
  view: RollbackView,
  id: string,
  text: string,
  tone: RollbackView['log'][number]['tone'],
): RollbackView {
  return { ...view, log: [...view.log.slice(-49), { id, text, tone }] };
}

export function rollbackRequested(state: RunState, commandId: string, target: string): RunState {
  return { ...state, rollback: { phase: 'requested', target, commandId, log: [] } };
}

/** The server refused our rollback command, or it failed once started: the error answers it by command id. */
export function rollbackRefused(
  state: RunState,
  commandId: string,
  code: string | undefined,
  message: string,
): RunState {
  const { phase, commandId: ours, undoing: _u, ...view } = state.rollback;
  if (ours !== commandId || (phase !== 'requested' && phase !== 'running')) return state;
  return {
    ...state,
    // Refused before it started, another client's rollback may still run: only ours ends here.
    run: phase === 'running' ? { ...state.run, isRollingBack: false } : state.run,
    rollback: { ...view, commandId, phase: 'failed', error: { ...(code ? { code } : {}), message } },
  };
}

export function rollbackEvent(state: RunState, e: RollbackEvent): RunState {
  const view = state.rollback;
  switch (e.type) {
    case 'rollback.started': {
      const d = e.data;
      const started: RollbackView = {
        phase: 'running',
        target:
          view.phase === 'requested' && view.target ? view.target : `${d.toCodon} (${d.checkpointType})`,
        ...(view.commandId ? { commandId: view.commandId } : {}),
        undoing: d.codonsToProcess,
        log: [],
      };
      return {
        ...state,
        rollback: log(
          started,
          e.id,
          `started: ${d.fromCodon || '(start)'} → ${d.toCodon} at ${short(d.toCheckpoint)} (${d.checkpointType}), ${d.codonsToProcess.length} codon(s) to undo`,
          'accent',
        ),
        run: { ...state.run, isRollingBack: true },
        notice: { text: `rolling back to ${d.toCodon} (${d.checkpointType})…`, tone: 'accent' },
      };
    }
    case 'rollback.progress':
      return {
        ...state,
        rollback: log(
          { ...view, phase: 'running', currentStep: e.data.currentStep, totalSteps: e.data.totalSteps },
          e.id,
          `${e.data.currentStep}/${e.data.totalSteps} ${e.data.message}`,
          'plain',
        ),
      };
    case 'rollback.codonCheckpoint': {
      const undoing = view.undoing ?? [];
      return {
        ...state,
        rollback: log(
          undoing.includes(e.data.codonId) ? view : { ...view, undoing: [...undoing, e.data.codonId] },
          e.id,
          `${e.data.codonId}: ${e.data.checkpointType} checkpoint ${short(e.data.checkpoint)} applied. ${e.data.message}`,
          'plain',
        ),
      };
    }
    case 'rollback.rigCleanup': {
      const d = e.data;
      const failed = d.failedCleanups?.map((f) => `${f.directory} (${f.error})`).join(', ');
      return {
        ...state,
        rollback: log(
          view,
          e.id,
          `${d.codonId}: rig cleanup ${d.status} ${d.directories.join(', ')}${failed ? `; failed: ${failed}` : ''}`,
          d.status === 'failed' || d.status === 'partial' ? 'warn' : 'plain',
        ),
      };
    }
    case 'rollback.archiveRestore':
      return {
        ...state,
        rollback: log(
          view,
          e.id,
          `${e.data.codonId}: restored ${e.data.restoredFiles.length} archived file(s) from ${e.data.sourceDir}`,
          'plain',
        ),
      };
    case 'rollback.completed': {
      const d = e.data;
      const { undoing = [], ...done } = view;
      if (view.cause === 'recovery') {
        return {
          ...markUndone(state, undoing),
          run: { ...state.run, isRollingBack: false },
          notice: {
            text: `recovered after the server stopped: back to ${d.codonId} (${d.checkpointType}); run ${d.toRun} goes on`,
            tone: 'warn',
          },
          rollback: log(
            { ...done, phase: 'completed', toRun: d.toRun },
            e.id,
            `recovered: back to ${d.codonId} (${d.checkpointType}) ${short(d.checkpoint)}; run ${d.toRun} goes on`,
            'ok',
          ),
        };
      }
      return {
        ...markUndone(state, undoing),
        run: { ...state.run, isRollingBack: false },
        notice: {
          text: `rolled back to ${d.codonId} (${d.checkpointType}); now run ${d.toRun}${d.autoRestart ? ', restarting' : ''}`,
          tone: 'ok',
        },
        rollback: log(
          { ...done, phase: 'completed', toRun: d.toRun },
          e.id,
          `completed: at ${d.codonId} (${d.checkpointType}) ${short(d.checkpoint)}; new run ${d.toRun}${d.autoRestart ? '; restarting' : ''}`,
          'ok',
        ),
      };
    }
  }
}

export function isRollbackEvent(e: ServerEvent): e is RollbackEvent {
  return e.type.startsWith('rollback.');
}
