import { own, type ServerEventOf } from '../../protocol/index.ts';
import { formatCost, formatDuration } from '../format.ts';
import type { Tone } from '../theme.ts';
import { type ActivityEntry, MAX_ACTIVITY, type RunState } from './run-state.ts';

/** The live activity pane: the agent's words, thinking, tool calls with results, file changes. */

export function appendActivity(state: RunState, entry: ActivityEntry): RunState {
  const max = state.activityLimit ?? MAX_ACTIVITY;
  if (max <= 0) return state;
  const activity =
    state.activity.length >= max
      ? [...state.activity.slice(state.activity.length - max + 1), entry]
      : [...state.activity, entry];
  return { ...state, activity };
}

export function assistantAction(state: RunState, e: ServerEventOf<'assistant.action'>): RunState {
  const d = e.data;
  if (d.action === 'tool_use') {
    const toolName = d.toolName ?? d.content.split(' ')[0] ?? 'tool';
    const summary = d.content.startsWith(toolName) ? d.content.slice(toolName.length).trim() : d.content;
    return appendActivity(state, {
      kind: 'tool',
      id: e.id,
      codonId: d.codonId,
      toolName,
      summary,
      ...(d.toolInput ? { input: d.toolInput } : {}),
    });
  }
  return appendActivity(state, { kind: d.action, id: e.id, codonId: d.codonId, text: d.content });
}

// How far back a result looks for its call: parallel calls are few, and old entries are done.
const PAIRING_WINDOW = 200;

/**
 * Attaches a tool.result to its call. assistant.action carries no toolUseId, so the result goes to
 * the oldest call of the same tool in the same codon still waiting for one.
 */
export function toolResult(state: RunState, e: ServerEventOf<'tool.result'>): RunState {
  const d = e.data;
  const result = {
    text: d.result,
    isError: d.isError,
    truncated: d.truncated,
    originalLength: d.originalLength,
    ms: d.executionTimeMs,
  };
  let match = -1;
  for (let i = state.activity.length - 1; i >= Math.max(0, state.activity.length - PAIRING_WINDOW); i--) {
    const entry = state.activity[i];
    if (
      entry?.kind === 'tool' &&
      !entry.result &&
      entry.codonId === d.codonId &&
      entry.toolName === d.toolName
    ) {
      match = i;
    }
  }
  const call = state.activity[match];
  if (call?.kind !== 'tool') {
    return appendActivity(state, {
      kind: 'tool',
      id: e.id,
      codonId: d.codonId,
      toolName: d.toolName,
      summary: '(call not seen)',
      result,
    });
  }
  const activity = state.activity.slice();
  activity[match] = { ...call, result };
  return { ...state, activity };
}

export function fileUpdated(state: RunState, e: ServerEventOf<'file.updated'>): RunState {
  const d = e.data;
  return appendActivity(state, {
    kind: 'file',
    id: e.id,
    path: d.path,
    action: d.action,
    content: d.content,
  });
}

export function codonStartedLine(state: RunState, e: ServerEventOf<'codon.started'>): RunState {
  const d = e.data;
  return appendActivity(state, {
    kind: 'codon',
    id: e.id,
    codonId: d.codonId,
    text: `▶ ${d.codonId}: ${d.codonName}${d.codonDescription ? ` — ${d.codonDescription}` : ''}`,
    tone: 'accent',
  });
}

export function codonCompletedLine(state: RunState, e: ServerEventOf<'codon.completed'>): RunState {
  const d = e.data;
  const status = own(state.codons, d.codonId)?.status;
  const word = status === 'skipped' || status === 'stopped' ? status : d.success ? 'completed' : 'failed';
  const reason = d.failureReason
    ? `: ${d.failureReason.type}${d.failureReason.message ? ` ${d.failureReason.message}` : ''}`
    : '';
  return appendActivity(state, {
    kind: 'codon',
    id: e.id,
    codonId: d.codonId,
    text: `■ ${d.codonId} ${word} in ${formatDuration(d.duration)}, ${formatCost(d.cost)}${word === 'failed' ? reason : ''}`,
    tone: word === 'completed' ? 'ok' : word === 'failed' ? 'bad' : 'warn',
  });
}

export function note(state: RunState, id: string, text: string, tone: Tone): RunState {
  return appendActivity(state, { kind: 'note', id, text, tone });
}
