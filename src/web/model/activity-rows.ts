import { type ErrorSeverity, type ServerEvent, suggestedAction } from '../../protocol/index.ts';
import { formatCost, formatDuration, oneLine } from '../../tui/format.ts';
import { pendingCallIndex, resultOf } from '../../tui/store/activity.ts';
import { severityOf } from '../../tui/store/errors.ts';
import { messageLine } from '../../tui/store/messages.ts';
import type { ToolResult } from '../../tui/store/run-state.ts';
import type { Tone } from '../../tui/theme.ts';
import { isDataLinkPath } from './file-tree.ts';

/**
 * The dashboard's activity list: every event worth reading, as one row each, the newest MAX_ROWS
 * of them (the TUI keeps the last thousand; a page shows 200 000 through a virtual window). Folded in batches: one
 * copy of the list per batch, so a whole journal folds in linear time.
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
  result?: ToolResult;
  severity?: ErrorSeverity;
  action?: string;
  sentinelId?: string;
};

/** `dropped`: how many older rows were let go to keep `rows` at MAX_ROWS. */
export type ActivityLog = { rows: readonly ActivityRow[]; codonId?: string; dropped?: number };

export const EMPTY_LOG: ActivityLog = { rows: [] };

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
  const rows = log.rows.slice();
  let codonId = log.codonId;
  const push = (row: ActivityRow) => rows.push(row);
  for (const e of events) {
    const base = { id: e.id, at: e.timestamp };
    switch (e.type) {
      case 'codon.started':
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
        const reason = d.failureReason ? `: ${d.failureReason.type} ${d.failureReason.message ?? ''}` : '';
        push({
          ...base,
          kind: 'codon',
          codonId: d.codonId,
          text: `■ ${d.codonId} ${d.success ? 'completed' : 'failed'} in ${formatDuration(d.duration)}, ${formatCost(d.cost)}${d.success ? '' : reason}`,
          tone: d.success ? 'ok' : 'bad',
        });
        if (codonId === d.codonId) codonId = undefined;
        break;
      }
      case 'assistant.action': {
        const d = e.data;
        if (d.action === 'tool_use') {
          const toolName = d.toolName ?? d.content.split(' ')[0] ?? 'tool';
          push({
            ...base,
            kind: 'tool',
            codonId: d.codonId,
            toolName,
            text: oneLine(d.content, 300),
            tone: 'plain',
            ...(d.toolInput ? { detail: JSON.stringify(d.toolInput, null, 2) } : {}),
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
        const result = resultOf(e);
        const match = pendingCallIndex(rows, e);
        const call = rows[match];
        if (call) rows[match] = { ...call, result, tone: d.isError ? 'bad' : call.tone };
        else
          push({
            ...base,
            kind: 'tool',
            codonId: d.codonId,
            toolName: d.toolName,
            text: `${d.toolName} (call not seen)`,
            tone: d.isError ? 'bad' : 'plain',
            result,
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
          text: `${e.data.action} ${e.data.path}`,
          tone: e.data.action === 'deleted' ? 'warn' : 'info',
          detail: e.data.content,
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
      default:
        break;
    }
  }
  const over = rows.length - MAX_ROWS;
  if (over > 0) rows.splice(0, over);
  const dropped = (log.dropped ?? 0) + Math.max(0, over);
  return { rows, ...(codonId === undefined ? {} : { codonId }), ...(dropped > 0 ? { dropped } : {}) };
}

export type ActivityFilter = { codonId?: string; kinds?: ReadonlySet<ActivityKind> };

/** The rows a filter keeps (the same array when nothing is filtered). */
export function filterRows(rows: readonly ActivityRow[], filter: ActivityFilter): readonly ActivityRow[] {
  const { codonId, kinds } = filter;
  if (!codonId && (!kinds || kinds.size === ACTIVITY_KINDS.length)) return rows;
  return rows.filter((r) => (!codonId || r.codonId === codonId) && (!kinds || kinds.has(r.kind)));
}
