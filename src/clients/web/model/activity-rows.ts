import type { ErrorSeverity, ServerEvent } from '../../../core/protocol/index.ts';
import { suggestedAction } from '../../../core/protocol/value-names.ts';
import { APPROVAL_WAIT_ICON, approvalEndedText, approvalWaitText } from '../../model/approval-wait.ts';
import {
  fileChangeText,
  formatCost,
  isEndedWithCodon,
  oneLine,
  sandboxDeniedText,
} from '../../model/format.ts';
import { answeredCall } from '../../model/paired-call.ts';
import { PAIRING_WINDOW, resultOf, sentinelActionText } from '../../model/store/activity.ts';
import { severityOf } from '../../model/store/errors.ts';
import { messageLine } from '../../model/store/messages.ts';
import { commentLine, reviewSentLine } from '../../model/store/reviews.ts';
import type { ToolResult } from '../../model/store/run-state.ts';
import type { Tone } from '../../model/tone.ts';
import { failureKind, USAGE_WAIT_ICON, usageWaitEndedText, usageWaitRecord } from '../../model/usage-wait.ts';
import { ChunkedList } from './chunked-list.ts';
import { isDataLinkPath } from './file-tree.ts';
import { durationWords } from './time-words.ts';

/**
 * The dashboard's activity list: every event worth reading, as one row each, the newest MAX_ROWS
 * of them (the TUI keeps the last thousand; a page shows 200 000 through a virtual window). Folded
 * in batches into a chunked list: a batch copies the chunk it appends to, not the list, so a whole
 * journal folds in linear time and a live batch costs what it adds.
 */

export type ActivityKind = 'codon' | 'message' | 'thinking' | 'tool' | 'file' | 'sentinel' | 'error' | 'note';
export const ACTIVITY_KINDS: readonly ActivityKind[] = [
  'codon',
  'message',
  'thinking',
  'tool',
  'file',
  'sentinel',
  'error',
  'note',
];

export type ActivityRow = {
  id: string;
  at: string;
  kind: ActivityKind;
  /** The codon it belongs to (file changes: the codon running then). */
  codonId?: string;
  /** One line: what the row says collapsed. */
  text: string;
  tone: Tone;
  /** What expanding the row shows (tool input, whole message, file content, structured output). */
  detail?: string;
  toolName?: string;
  /** The file a file row or a tool call (its input's file_path) is about: its detail is highlighted by it. */
  path?: string;
  /** A tool call's id (assistant.action toolUseId), when its event carried one. */
  toolUseId?: string;
  result?: ToolResult;
  /** A tool call whose result never came and never can: its codon ended (format.ts). */
  endedWithCodon?: true;
  severity?: ErrorSeverity;
  action?: string;
  sentinelId?: string;
};

/**
 * `dropped`: how many older rows were let go to keep `rows` at MAX_ROWS. `waiting`: the tool calls
 * still waiting for their result, oldest first, each by its number among all rows ever folded (the
 * dropped ones count): a result looks among these (those in the last PAIRING_WINDOW rows), not
 * through 200 rows (a quarter of a million results in a million-event history), and a codon's end
 * marks its own as ended with it.
 */
export type ActivityLog = {
  rows: ChunkedList<ActivityRow>;
  codonId?: string;
  dropped?: number;
  waiting?: readonly number[];
};

export const EMPTY_LOG: ActivityLog = { rows: ChunkedList.empty() };

/**
 * The most rows the page keeps (the newest): a million-event journal would otherwise keep three
 * quarters of a million rows in the page, and copy them on every batch of live events.
 */
export const MAX_ROWS = 200_000;

/** `ownClientIds`: this page's connections, whose messages read "you → agent". */
export function foldActivity(
  log: ActivityLog,
  events: readonly ServerEvent[],
  ownClientIds?: readonly string[],
): ActivityLog {
  const rows = log.rows.edit();
  let codonId = log.codonId;
  const push = (row: ActivityRow) => rows.push(row);
  // The number of rows.at(0) among all rows folded; the calls waiting, by number.
  const first = log.dropped ?? 0;
  const waiting = log.waiting?.slice() ?? [];
  /**
   * The call a tool.result goes to (answeredCall, the terminal UI's rule too), among the waiting
   * calls in the last PAIRING_WINDOW rows; taken from the waiting ones.
   */
  const waitingCall = (result: {
    codonId: string;
    toolName: string;
    toolUseId?: string | undefined;
  }): number => {
    const from = first + rows.length - PAIRING_WINDOW;
    let inSight = 0;
    while (inSight < waiting.length && (waiting[waiting.length - 1 - inSight] ?? 0) >= from) inSight++;
    const newest = waiting.length - 1;
    const k = answeredCall(inSight, (k) => rows.at((waiting[newest - k] ?? 0) - first), result);
    return k < 0 ? -1 : takeWaiting(newest - k);
  };
  const takeWaiting = (w: number): number => (waiting.splice(w, 1)[0] ?? 0) - first;
  /** The codon's calls still waiting end with it (it ended, or a new attempt started): no result can come. */
  const endWaiting = (codon: string) => {
    for (let w = waiting.length - 1; w >= 0; w--) {
      const i = (waiting[w] ?? 0) - first;
      const row = rows.at(i);
      if (row?.codonId !== codon) continue;
      waiting.splice(w, 1);
      rows.set(i, { ...row, endedWithCodon: true, tone: 'muted' });
    }
  };
  for (const e of events) {
    const base = { id: e.id, at: e.timestamp };
    switch (e.type) {
      case 'codon.started':
        endWaiting(e.data.codonId);
        codonId = e.data.codonId;
        push({
          ...base,
          kind: 'codon',
          codonId,
          text: `▶ ${e.data.codonId}: ${e.data.codonName}${e.data.attempt && e.data.attempt > 1 ? ` (attempt ${e.data.attempt})` : ''}`,
          tone: 'accent',
        });
        break;
      case 'codon.completed': {
        const d = e.data;
        endWaiting(d.codonId);
        const reason = d.failureReason
          ? `: ${failureKind(d.failureReason, Date.parse(e.timestamp))} ${d.failureReason.message ?? ''}`
          : '';
        push({
          ...base,
          kind: 'codon',
          codonId: d.codonId,
          text: `■ ${d.codonId} ${d.success ? 'completed' : 'failed'} in ${durationWords(d.duration)}, ${formatCost(d.cost, d.costEstimated)}${d.success ? '' : reason}`,
          tone: d.success ? 'ok' : 'bad',
        });
        if (codonId === d.codonId) codonId = undefined;
        break;
      }
      case 'assistant.action': {
        const d = e.data;
        if (d.action === 'tool_use') {
          const toolName = d.toolName ?? d.content.split(' ')[0] ?? 'tool';
          waiting.push(first + rows.length);
          push({
            ...base,
            kind: 'tool',
            codonId: d.codonId,
            toolName,
            ...(d.toolUseId === undefined ? {} : { toolUseId: d.toolUseId }),
            text: oneLine(d.content, 300),
            tone: 'plain',
            ...(d.toolInput ? { detail: JSON.stringify(d.toolInput, null, 2) } : {}),
            ...(typeof d.toolInput?.file_path === 'string' ? { path: d.toolInput.file_path } : {}),
          });
        } else {
          push({
            ...base,
            kind: d.action,
            codonId: d.codonId,
            text: oneLine(d.content, 300),
            tone: d.action === 'thinking' ? 'muted' : 'plain',
            detail: d.content,
          });
        }
        break;
      }
      case 'tool.result': {
        const d = e.data;
        // A made-up result of a call cut short is no result: the call ended with the codon.
        const ended = isEndedWithCodon(d);
        const outcome = ended ? { endedWithCodon: true as const } : { result: resultOf(e) };
        const tone = ended ? 'muted' : d.isError ? 'bad' : undefined;
        const match = waitingCall(d);
        const call = rows.at(match);
        if (call && match >= 0) rows.set(match, { ...call, ...outcome, tone: tone ?? call.tone });
        else
          push({
            ...base,
            kind: 'tool',
            codonId: d.codonId,
            toolName: d.toolName,
            toolUseId: d.toolUseId,
            text: `${d.toolName} (call not seen)`,
            tone: tone ?? 'plain',
            ...outcome,
          });
        break;
      }
      case 'codon.message':
        push({
          ...base,
          kind: 'message',
          codonId: e.data.codonId,
          text: oneLine(messageLine(e.data, ownClientIds), 300),
          tone: 'accent',
          detail: e.data.text,
        });
        break;
      case 'file.updated':
        if (isDataLinkPath(e.data.path)) break;
        push({
          ...base,
          kind: 'file',
          ...(codonId ? { codonId } : {}),
          text: fileChangeText(e.data),
          tone: e.data.ignored ? 'muted' : e.data.action === 'deleted' ? 'warn' : 'info',
          detail: e.data.content,
          path: e.data.path,
        });
        break;
      case 'sentinel.output': {
        const d = e.data;
        const content = typeof d.content === 'string' ? d.content : JSON.stringify(d.content, null, 2);
        push({
          ...base,
          kind: 'sentinel',
          codonId: d.codonId,
          sentinelId: d.sentinelId,
          text: `${d.sentinelId} #${d.triggerNumber}: ${oneLine(content, 300)}`,
          tone: 'info',
          detail: content,
        });
        break;
      }
      case 'sentinel.action':
        push({
          ...base,
          kind: 'sentinel',
          codonId: e.data.codonId,
          sentinelId: e.data.sentinelId,
          text: oneLine(sentinelActionText(e.data), 300),
          tone: e.data.action === 'message' || e.data.dryRun ? 'info' : 'warn',
          ...(e.data.text === undefined ? {} : { detail: e.data.text }),
        });
        break;
      case 'sentinel.error':
        push({
          ...base,
          kind: 'sentinel',
          codonId: e.data.codonId,
          sentinelId: e.data.sentinelId,
          text: `${e.data.sentinelId} ${e.data.errorType}: ${oneLine(e.data.message, 300)}`,
          tone: 'bad',
          detail: e.data.message,
        });
        break;
      case 'error': {
        const d = e.data;
        const severity = severityOf(d);
        push({
          ...base,
          kind: 'error',
          ...(d.codon ? { codonId: d.codon } : {}),
          severity,
          action: suggestedAction[severity],
          text: `${severity}${d.code ? ` ${d.code}` : ''}: ${oneLine(d.message, 300)}`,
          tone: severity === 'warning' ? 'warn' : 'bad',
          detail: [d.message, d.context].filter(Boolean).join('\n\n'),
        });
        break;
      }
      case 'info':
        push({ ...base, kind: 'note', text: `ℹ ${oneLine(e.data.message, 300)}`, tone: 'info' });
        break;
      case 'server.idle':
        push({ ...base, kind: 'note', text: `= ${e.data.message}`, tone: 'muted' });
        break;
      case 'usageLimit.waiting': {
        const said = e.data.detail ? `: ${oneLine(e.data.detail, 300)}` : '';
        push({
          ...base,
          kind: 'note',
          codonId: e.data.codonId,
          text: `${USAGE_WAIT_ICON} ${usageWaitRecord(e.data, Date.parse(e.timestamp))}${said}`,
          tone: 'warn',
        });
        break;
      }
      case 'review.comment':
        push({
          ...base,
          kind: 'note',
          codonId: e.data.codonId,
          text: oneLine(commentLine(e.data, ownClientIds), 300),
          tone: 'info',
          detail: `${e.data.text}\n\n${e.data.hunk}`,
        });
        break;
      case 'review.sent':
        push({
          ...base,
          kind: 'note',
          codonId: e.data.codonId,
          text: oneLine(reviewSentLine(e.data, ownClientIds), 300),
          tone: 'accent',
          detail: e.data.text,
        });
        break;
      case 'approval.waiting':
        push({
          ...base,
          kind: 'note',
          codonId: e.data.codonId,
          text: `${APPROVAL_WAIT_ICON} ${oneLine(approvalWaitText(e.data))}`,
          tone: 'warn',
        });
        break;
      case 'approval.ended':
        push({
          ...base,
          kind: 'note',
          codonId: e.data.codonId,
          text: `▷ ${oneLine(approvalEndedText(e.data))}${e.data.note ? `: ${oneLine(e.data.note, 200)}` : ''}`,
          tone: 'info',
        });
        break;
      case 'usageLimit.ended':
        push({
          ...base,
          kind: 'note',
          codonId: e.data.codonId,
          text: `▷ ${usageWaitEndedText(e.data)}`,
          tone: 'info',
        });
        break;
      case 'rollback.started':
        push({
          ...base,
          kind: 'note',
          text: `↶ rollback to ${e.data.toCodon} (${e.data.checkpointType}), undoing ${e.data.codonsToProcess.join(', ') || 'nothing'}`,
          tone: 'warn',
        });
        break;
      case 'rollback.completed':
        push({
          ...base,
          kind: 'note',
          text: `↶ rolled back to ${e.data.codonId} ${e.data.checkpointType}: run ${e.data.toRun}`,
          tone: 'ok',
        });
        break;
      case 'verify.completed':
        push({
          ...base,
          kind: 'note',
          codonId: e.data.codonId,
          text: `${e.data.passed ? '✓' : '✗'} ${e.data.codonId} gate ${e.data.gate + 1} ${e.data.passed ? 'passed' : 'failed'}`,
          tone: e.data.passed ? 'ok' : 'warn',
        });
        break;
      case 'sandbox.denied':
        push({
          ...base,
          kind: 'note',
          codonId: e.data.codonId,
          text: sandboxDeniedText(e.data),
          tone: 'warn',
        });
        break;
      default:
        break;
    }
  }
  const dropped = first + rows.keepLast(MAX_ROWS);
  // Calls out of the pairing window are kept until their codon ends them (few: a codon's calls get results).
  const stillWaiting = waiting.filter((n) => n >= dropped);
  return {
    rows: rows.done(),
    ...(codonId === undefined ? {} : { codonId }),
    ...(dropped > 0 ? { dropped } : {}),
    ...(stillWaiting.length > 0 ? { waiting: stillWaiting } : {}),
  };
}

export type ActivityFilter = { codonId?: string; kinds?: ReadonlySet<ActivityKind> };

/** Rows to read by index: the whole list, or the ones a filter kept. */
export type RowView = ChunkedList<ActivityRow> | readonly ActivityRow[];

/** The rows a filter keeps (the same list when nothing is filtered). */
export function filterRows(rows: RowView, filter: ActivityFilter): RowView {
  const { codonId, kinds } = filter;
  if (!codonId && (!kinds || kinds.size === ACTIVITY_KINDS.length)) return rows;
  return rows.filter((r) => (!codonId || r.codonId === codonId) && (!kinds || kinds.has(r.kind)));
}
