import type { CodonStatus, ServerEvent, StateTransitionType } from '../../../../src/core/protocol/index.ts';
import { ev } from './fake-client.ts';

/** Event sequences shaped like the engine's, for driving the store and the panes. */

export const RUN = 'run-1-abcd';

/** The server's totals as its transitions report them: every run's cost, and the current run's. */
let totalCost = 0;
let run = { id: RUN, count: 1, cost: 0 };
export function resetCost(): void {
  totalCost = 0;
  run = { id: RUN, count: 1, cost: 0 };
}

export function transition(type: StateTransitionType, data: Record<string, unknown>, cost = 0): ServerEvent {
  totalCost += cost;
  run.cost += cost;
  return ev('state.transition', {
    transitionType: type,
    runId: run.id,
    ...(typeof data.codonId === 'string' ? { codonId: data.codonId } : {}),
    transition: { type, data: { runId: run.id, ...data } },
    resultingState: { currentRunId: run.id, runCount: run.count, totalCost, currentRunCost: run.cost },
  });
}

export const serverTotals = () => ({ totalCost, runCost: run.cost, runId: run.id });

export function runStarted(branch?: string): ServerEvent[] {
  return [
    transition('RunStarted', {
      startedAt: new Date(Date.now() - 65_000).toISOString(),
      reason: 'start',
      nextCodonIndex: 0,
      ...(branch ? { branch } : {}),
    }),
  ];
}

export function codonStart(
  codonId: string,
  index: number,
  name = `Codon ${codonId}`,
  attempt?: { attempt: number; maxAttempts: number; model: string },
): ServerEvent[] {
  const startTime = new Date().toISOString();
  return [
    transition('CodonStarted', {
      codonId,
      codonName: name,
      codonIndex: index,
      sessionId: `s-${codonId}`,
      startTime,
    }),
    ev('codon.started', { codonId, codonName: name, sessionId: `s-${codonId}`, startTime, ...attempt }),
    transition('CodonTransitioned', { codonId, from: 'preparing', to: 'running', at: startTime }),
  ];
}

export function codonEnd(
  codonId: string,
  to: Extract<CodonStatus, 'completed' | 'failed' | 'skipped' | 'stopped'>,
  cost = 0.0123,
  duration = 2_100,
): ServerEvent[] {
  const success = to === 'completed';
  const failureReason = success
    ? undefined
    : { type: 'unknown' as const, retriable: true, message: `it ${to}` };
  return [
    transition('CodonTransitioned', {
      codonId,
      from: 'running',
      to,
      at: new Date().toISOString(),
      duration,
      ...(failureReason ? { failureReason } : {}),
    }),
    ev('codon.completed', {
      codonId,
      success,
      cost,
      duration,
      exitStatus: success ? { type: 'success' } : { type: 'killed', signal: 'SIGTERM' },
      ...(failureReason ? { failureReason } : {}),
    }),
  ];
}

export function toolCall(
  codonId: string,
  toolName: string,
  summary: string,
  input: Record<string, unknown>,
  /** The call's id; absent: a call as journals before assistant.action carried one hold it. */
  toolUseId?: string,
): ServerEvent {
  return ev('assistant.action', {
    codonId,
    action: 'tool_use',
    content: `${toolName} ${summary}`,
    toolName,
    toolInput: input,
    ...(toolUseId === undefined ? {} : { toolUseId }),
  });
}

export function toolDone(
  codonId: string,
  toolName: string,
  result: string,
  isError = false,
  toolUseId = `toolu_${Math.random().toString(36).slice(2)}`,
  executionTimeMs = 42,
): ServerEvent {
  return ev('tool.result', {
    codonId,
    toolUseId,
    toolName,
    result,
    truncated: false,
    originalLength: result.length,
    executionTimeMs,
    isError,
  });
}

export function usage(codonId: string, input: number, output: number, cost = 0): ServerEvent[] {
  return [
    ev('token.usage', {
      codonId,
      inputTokens: input,
      outputTokens: output,
      cacheCreationTokens: 0,
      cacheReadTokens: 0,
      totalCost: cost,
    }),
    transition('CostsIncremented', { codonId, amount: cost, source: 'agent' }, cost),
  ];
}

/**
 * A rollback as the engine reports it (spec 3.2): started, progress, one codonCheckpoint per codon
 * undone, the old run completed and a new one started, rollback.completed, then a snapshot of the new
 * run, which has no codons of its own yet.
 */
export function rollback(options: {
  toCodon: string;
  checkpointType: string;
  undo: string[];
  toRun: string;
  autoRestart?: boolean;
  /** A restarted server's recovery: its run (begun `recovery`) goes on; the crashed one does not complete. */
  reason?: 'rollback' | 'recovery';
}): ServerEvent[] {
  const fromRun = run.id;
  const now = () => new Date().toISOString();
  const sha = (id: string) => `${id.padEnd(8, '0').slice(0, 8)}cafe`;
  const events: ServerEvent[] = [
    ev('rollback.started', {
      fromRun,
      fromCodon: options.undo.at(-1) ?? '',
      toCodon: options.toCodon,
      toCheckpoint: sha(options.toCodon),
      checkpointType: options.checkpointType,
      codonsToProcess: options.undo,
    }),
    ev('rollback.progress', { currentStep: 1, totalSteps: options.undo.length + 3, message: 'rolling back' }),
    ...options.undo.map((codonId) =>
      ev('rollback.codonCheckpoint', {
        codonId,
        codonName: `Codon ${codonId}`,
        checkpoint: sha(codonId),
        checkpointType: 'completed',
        message: `undoing ${codonId}`,
      }),
    ),
    ...(options.reason === 'recovery' ? [] : [transition('RunCompleted', { endedAt: now() })]),
  ];
  run = { id: options.toRun, count: run.count + 1, cost: 0 };
  events.push(
    transition('RunStarted', {
      startedAt: now(),
      reason: options.reason ?? 'rollback',
      nextCodonIndex: 1,
      fromRunId: fromRun,
      branch: `run/${options.toRun}`,
    }),
    ev('rollback.completed', {
      fromRun,
      toRun: options.toRun,
      checkpoint: sha(options.toCodon),
      codonId: options.toCodon,
      codonName: `Codon ${options.toCodon}`,
      checkpointType: options.checkpointType,
      autoRestart: options.autoRestart ?? false,
    }),
    ev('state.snapshot', {
      completedCodons: [],
      fileTree: [],
      totalCost,
      totalTime: 0,
      isRollingBack: false,
    }),
  );
  return events;
}
