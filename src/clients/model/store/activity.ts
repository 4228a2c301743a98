import type { ServerEventOf } from '../../../core/protocol/index.ts';
import { own } from '../../../core/protocol/own.ts';
import { formatCost, formatDuration, isEndedWithCodon, oneLine } from '../format.ts';
import { answeredCall } from '../paired-call.ts';
import type { Tone } from '../tone.ts';
import { failureKind } from '../usage-wait.ts';
import { draftOf, inFoldBatch, isBatching, isDraft } from './batch-draft.ts';
import { type ActivityEntry, MAX_ACTIVITY, type RunState, type ToolResult } from './run-state.ts';

/**
 * The live activity pane: the agent's words, thinking, tool calls with results, file changes. It
 * keeps the newest `activityLimit` entries and counts the ones it dropped; a codon's own totals
 * stay on its row (codons.ts), so a million-event journal folds into a bounded state.
 */

// While a batch folds (batch-draft.ts), the activity array it copied at its first change is its
// own: later appends and results of the same batch change it in place instead of copying a thousand
// entries per event. The batch's result is trimmed.

/** Folds a batch (`inFoldBatch`), its activity trimmed to the limit at the end. */
export function inActivityBatch(state: RunState, fold: (state: RunState) => RunState): RunState {
  if (isBatching()) return fold(state);
  return inFoldBatch(() => trimActivity(fold(state)));
}

/** Whether the state keeps activity entries at all (the web dashboard keeps its own: limit 0). */
export function keepsActivity(state: RunState): boolean {
  return (state.activityLimit ?? MAX_ACTIVITY) > 0;
}

/** Drops the oldest entries past the limit, counting them. */
function trimActivity(state: RunState): RunState {
  const max = state.activityLimit ?? MAX_ACTIVITY;
  const over = state.activity.length - max;
  if (max <= 0 || over <= 0) return state;
  const dropped = state.activityDropped + over;
  if (!isDraft(state.activity))
    return { ...state, activity: state.activity.slice(over), activityDropped: dropped };
  state.activity.splice(0, over);
  return { ...state, activityDropped: dropped };
}

export function appendActivity(state: RunState, entry: ActivityEntry): RunState {
  const max = state.activityLimit ?? MAX_ACTIVITY;
  if (max <= 0) return state;
  if (!isBatching()) return trimActivity({ ...state, activity: [...state.activity, entry] });
  const activity = draftOf(state.activity);
  activity.push(entry);
  const next = activity === state.activity ? state : { ...state, activity };
  // A long batch (a whole history at once) trims now and then, not once per entry.
  return activity.length > 2 * max + 1_000 ? trimActivity(next) : next;
}

/** Puts `entry` in place of the activity entry at `index` (in the batch's array while one runs). */
export function replaceActivity(state: RunState, index: number, entry: ActivityEntry): RunState {
  const activity = draftOf(state.activity);
  activity[index] = entry;
  return activity === state.activity ? state : { ...state, activity };
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
      ...(d.toolUseId === undefined ? {} : { toolUseId: d.toolUseId }),
    });
  }
  return appendActivity(state, { kind: d.action, id: e.id, codonId: d.codonId, text: d.content });
}

// How far back a result looks for its call: parallel calls are few, and old entries are done.
export const PAIRING_WINDOW = 200;

/** A tool.result as an activity row holds it. */
export function resultOf(e: ServerEventOf<'tool.result'>): ToolResult {
  const d = e.data;
  return {
    text: d.result,
    isError: d.isError,
    truncated: d.truncated,
    originalLength: d.originalLength,
    ms: d.executionTimeMs,
  };
}

type PairableRow = {
  kind: string;
  result?: unknown;
  endedWithCodon?: true;
  codonId?: string;
  toolName?: string;
  toolUseId?: string;
};

/** A tool call whose result has not come (and still can). */
export function isWaiting(row: PairableRow | undefined): boolean {
  return row?.kind === 'tool' && !row.result && !row.endedWithCodon;
}

/**
 * Where a tool.result's call is among `rows` (-1: not in sight): the waiting call answeredCall
 * picks among the last PAIRING_WINDOW.
 */
export function pendingCallIndex(
  rows: { readonly length: number; at(index: number): PairableRow | undefined },
  e: ServerEventOf<'tool.result'>,
): number {
  const newest = rows.length - 1;
  const k = answeredCall(
    Math.min(rows.length, PAIRING_WINDOW),
    (k) => {
      const row = rows.at(newest - k);
      return isWaiting(row) ? row : undefined;
    },
    e.data,
  );
  return k < 0 ? -1 : newest - k;
}

/**
 * Attaches a tool.result to its call (`pendingCallIndex`), or shows it alone when none is waiting. A
 * result an agent's translator made up for a call cut short (isEndedWithCodon) is no result: the
 * call ended with the codon.
 */
export function toolResult(state: RunState, e: ServerEventOf<'tool.result'>): RunState {
  const d = e.data;
  const outcome = isEndedWithCodon(d) ? { endedWithCodon: true as const } : { result: resultOf(e) };
  const match = pendingCallIndex(state.activity, e);
  const call = state.activity[match];
  if (call?.kind !== 'tool') {
    return appendActivity(state, {
      kind: 'tool',
      id: e.id,
      codonId: d.codonId,
      toolName: d.toolName,
      toolUseId: d.toolUseId,
      summary: '(call not seen)',
      ...outcome,
    });
  }
  return replaceActivity(state, match, { ...call, ...outcome });
}

/**
 * Marks the calls of `codonId` still waiting as ended with the codon: it ended, or a new attempt of it
 * started, so their results can never come (a server killed meanwhile, an agent stopped mid-call).
 */
export function endWaitingCalls(state: RunState, codonId: string): RunState {
  const open: number[] = [];
  state.activity.forEach((entry, i) => {
    if (entry.kind === 'tool' && entry.codonId === codonId && isWaiting(entry)) open.push(i);
  });
  if (open.length === 0) return state;
  const activity = draftOf(state.activity);
  for (const i of open) {
    const entry = activity[i];
    if (entry?.kind === 'tool') activity[i] = { ...entry, endedWithCodon: true };
  }
  return activity === state.activity ? state : { ...state, activity };
}

export function fileUpdated(state: RunState, e: ServerEventOf<'file.updated'>): RunState {
  const d = e.data;
  return appendActivity(state, {
    kind: 'file',
    id: e.id,
    path: d.path,
    action: d.action,
    content: d.content,
    ...(d.ignored ? { ignored: true as const } : {}),
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
  const row = own(state.codons, d.codonId);
  const status = row?.status;
  const cost = formatCost(d.cost, d.costEstimated === true || row?.costEstimated === true);
  const word = status === 'skipped' || status === 'stopped' ? status : d.success ? 'completed' : 'failed';
  const reason = d.failureReason
    ? `: ${failureKind(d.failureReason, Date.parse(e.timestamp))}${d.failureReason.message ? ` ${d.failureReason.message}` : ''}`
    : '';
  return appendActivity(state, {
    kind: 'codon',
    id: e.id,
    codonId: d.codonId,
    text: `■ ${d.codonId} ${word} in ${formatDuration(d.duration)}, ${cost}${word === 'failed' ? reason : ''}`,
    tone: word === 'completed' ? 'ok' : word === 'failed' ? 'bad' : 'warn',
  });
}

export function note(state: RunState, id: string, text: string, tone: Tone): RunState {
  return appendActivity(state, { kind: 'note', id, text, tone });
}

/** The actions a sentinel.error action-failed names first: `halt failed: ...`, `rollback not taken: ...`. */
const FAILED_ACTION = /^(message|halt|rollback|redo|comment) failed: /;

/** `⚑ [loop] halt two (repeating equals true)`, `⚑ [loop] would message two (...): text`. */
export function sentinelActionText(d: ServerEventOf<'sentinel.action'>['data']): string {
  const what = `${d.dryRun ? 'would ' : ''}${d.action} ${d.codonId}`;
  const text = d.text === undefined ? '' : `: ${oneLine(d.text)}`;
  return `⚑ [${d.sentinelId}] ${what} (${oneLine(d.reason)})${text}`;
}

/** `⚑ [loop] halt two (...)`: a sentinel's action, kept findable so a later failure marks it. */
export function sentinelActionLine(state: RunState, e: ServerEventOf<'sentinel.action'>): RunState {
  const d = e.data;
  return appendActivity(state, {
    kind: 'note',
    id: e.id,
    text: sentinelActionText(d),
    tone: d.action === 'message' || d.dryRun ? 'info' : 'warn',
    ...(d.dryRun ? {} : { action: { sentinelId: d.sentinelId, codonId: d.codonId, action: d.action } }),
  });
}

/**
 * A sentinel action that failed after it was announced (sentinel.error action-failed, "rollback
 * failed: ..."): its Activity line, the latest of that sentinel, codon and action not yet marked,
 * says so (`⚑ [twoB] rollback second (...) — failed: already being stopped`), not only the Sentinels pane.
 */
export function sentinelActionFailed(state: RunState, e: ServerEventOf<'sentinel.error'>): RunState {
  const d = e.data;
  const kind = d.errorType === 'action-failed' ? FAILED_ACTION.exec(d.message)?.[1] : undefined;
  if (kind === undefined) return state;
  const index = state.activity.findLastIndex(
    (entry) =>
      entry.kind === 'note' &&
      entry.action !== undefined &&
      !entry.action.failed &&
      entry.action.sentinelId === d.sentinelId &&
      entry.action.codonId === d.codonId &&
      entry.action.action === kind,
  );
  const entry = state.activity[index];
  if (entry?.kind !== 'note' || entry.action === undefined) return state;
  const reason = oneLine(d.message.slice(`${kind} failed: `.length));
  return replaceActivity(state, index, {
    ...entry,
    text: `${entry.text} — failed: ${reason}`,
    tone: 'bad',
    action: { ...entry.action, failed: true },
  });
}
