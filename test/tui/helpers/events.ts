import type { CodonStatus, ServerEvent, StateTransitionType } from '../../../src/protocol/index.ts';
import { ev } from './fake-client.ts';

/** Event sequences shaped like the engine's, for driving the store and the panes. */

export const RUN = 'run-1-abcd';

let totalCost = 0;
export function resetCost(): void {
  totalCost = 0;
}

export function transition(type: StateTransitionType, data: Record<string, unknown>, cost = 0): ServerEvent {
  totalCost += cost;
  return ev('state.transition', {
    transitionType: type,
    runId: RUN,
    ...(typeof data.codonId === 'string' ? { codonId: data.codonId } : {}),
    transition: { type, data: { runId: RUN, ...data } },
    resultingState: { currentRunId: RUN, runCount: 1, totalCost, currentRunCost: totalCost },
  });
}

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

export function codonStart(codonId: string, index: number, name = `Codon ${codonId}`): ServerEvent[] {
  const startTime = new Date().toISOString();
  return [
    transition('CodonStarted', {
      codonId,
      codonName: name,
      codonIndex: index,
      sessionId: `s-${codonId}`,
      startTime,
    }),
    ev('codon.started', { codonId, codonName: name, sessionId: `s-${codonId}`, startTime }),
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
): ServerEvent {
  return ev('assistant.action', {
    codonId,
    action: 'tool_use',
    content: `${toolName} ${summary}`,
    toolName,
    toolInput: input,
  });
}

export function toolDone(codonId: string, toolName: string, result: string, isError = false): ServerEvent {
  return ev('tool.result', {
    codonId,
    toolUseId: `toolu_${Math.random().toString(36).slice(2)}`,
    toolName,
    result,
    truncated: false,
    originalLength: result.length,
    executionTimeMs: 42,
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
