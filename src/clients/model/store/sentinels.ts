import type { ServerEventOf } from '../../../core/protocol/index.ts';
import { own } from '../../../core/protocol/own.ts';
import { oneLine } from '../format.ts';
import { MAX_SENTINEL_OUTPUTS, type RunState, type SentinelView } from './run-state.ts';

/** Sentinel monitors, each with its outputs and errors (sentinel.loaded / output / error / unloaded). */

function upsert(
  state: RunState,
  sentinelId: string,
  codonId: string,
  change: (s: SentinelView) => SentinelView,
): RunState {
  const existing = own(state.sentinels, sentinelId);
  const base: SentinelView = existing ?? {
    sentinelId,
    codonId,
    status: 'loaded',
    cost: 0,
    calls: 0,
    outputs: [],
    errors: [],
  };
  return {
    ...state,
    sentinels: { ...state.sentinels, [sentinelId]: change(base) },
    sentinelOrder: existing ? state.sentinelOrder : [...state.sentinelOrder, sentinelId],
  };
}

const keepLast = <T>(items: readonly T[], item: T): T[] =>
  items.length >= MAX_SENTINEL_OUTPUTS ? [...items.slice(1 - MAX_SENTINEL_OUTPUTS), item] : [...items, item];

export function sentinelLoaded(state: RunState, e: ServerEventOf<'sentinel.loaded'>): RunState {
  const d = e.data;
  return upsert(state, d.sentinelId, d.codonId, (s) => {
    const { unloadReason: _gone, ...rest } = s;
    return { ...rest, codonId: d.codonId, model: d.model, strategy: d.executionStrategy, status: 'loaded' };
  });
}

export function sentinelUnloaded(state: RunState, e: ServerEventOf<'sentinel.unloaded'>): RunState {
  const d = e.data;
  return upsert(state, d.sentinelId, d.codonId, (s) => ({
    ...s,
    status: 'unloaded',
    unloadReason: d.errorType ? `${d.reason} (${d.errorType})` : d.reason,
    cost: Math.max(s.cost, d.finalCost),
    calls: Math.max(s.calls, d.llmCallCount),
  }));
}

export function sentinelOutput(state: RunState, e: ServerEventOf<'sentinel.output'>): RunState {
  const d = e.data;
  const text = typeof d.content === 'string' ? d.content : JSON.stringify(d.content);
  return upsert(state, d.sentinelId, d.codonId, (s) => ({
    ...s,
    cost: s.cost + d.cost,
    calls: s.calls + 1,
    outputs: keepLast(s.outputs, {
      id: e.id,
      codonId: d.codonId,
      triggerNumber: d.triggerNumber,
      text: oneLine(text, 2_000),
      cost: d.cost,
      timestamp: e.timestamp,
    }),
  }));
}

export function sentinelError(state: RunState, e: ServerEventOf<'sentinel.error'>): RunState {
  const d = e.data;
  return upsert(state, d.sentinelId, d.codonId, (s) => ({
    ...s,
    errors: keepLast(s.errors, {
      id: e.id,
      text: `${d.errorType}: ${oneLine(d.message)}`,
      retriable: d.retriable,
      consecutive: d.consecutiveFailureCount,
      timestamp: e.timestamp,
    }),
  }));
}
