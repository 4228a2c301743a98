import type { CodonStatus } from '../../../../core/protocol/index.ts';
import { APPROVAL_WAIT_ICON, APPROVAL_WAIT_SHORT, APPROVAL_WAIT_WORD } from '../../../model/approval-wait.ts';
import { formatCost, formatDuration } from '../../../model/format.ts';
import {
  attemptWord,
  fallbackModelOf,
  isActiveStatus,
  orderedCodons,
  UNDONE,
} from '../../../model/store/codons.ts';
import type { CodonRow, RunState } from '../../../model/store/run-state.ts';
import { PASSED_OVER, passedOverCodons } from '../../../model/store/selectors.ts';
import type { Tone } from '../../../model/tone.ts';
import { USAGE_WAIT_ICON, USAGE_WAIT_SHORT, USAGE_WAIT_WORD } from '../../../model/usage-wait.ts';
import { padTo } from '../fit-text.ts';
import type { Line } from '../lines.ts';

/**
 * The codon list: one line per codon known, in plan order, with status, cost and duration. The codon
 * the server says codon.next starts (server.idle nextCodonId) is marked next; codons a rollback undid
 * are pending and dimmed, with no cost or time of the attempt that was undone.
 */

export const STATUS_ICON: Record<CodonStatus, string> = {
  pending: '·',
  preparing: '◌',
  running: '▶',
  completed: '✓',
  failed: '✗',
  skipped: '↷',
  stopped: '■',
};

// Hollow: about to run (▶ runs).
const NEXT_ICON = '▷';

const waitsForUsage = (row: CodonRow) => row.note === USAGE_WAIT_WORD;
const waitsForApproval = (row: CodonRow) => row.note === APPROVAL_WAIT_WORD;

const STATUS_TONE: Record<CodonStatus, Tone> = {
  pending: 'muted',
  preparing: 'accent',
  running: 'accent',
  completed: 'ok',
  failed: 'bad',
  skipped: 'warn',
  stopped: 'warn',
};

export type CodonLines = { lines: Line[]; running?: number; selected?: number };

export function codonLines(
  codons: RunState['codons'],
  idle: RunState['run']['idle'],
  width: number,
  now: number,
  /** The server told the whole plan (server.ready): no codon is missing from the list. */
  planKnown = false,
  /** The selected codon: marked `›` and drawn inverse (every line then starts two columns in). */
  selected?: string,
): CodonLines {
  const rows = orderedCodons(codons);
  if (rows.length === 0) {
    return {
      lines: [
        { text: 'No codon has started yet.', tone: 'muted' },
        { text: 'Codons appear here as they start.', tone: 'muted', dim: true },
      ],
    };
  }
  let running: number | undefined;
  const passedOver = passedOverCodons(rows, idle);
  const selecting = selected !== undefined && rows.some((row) => row.codonId === selected);
  // Each codon's agent only when the plan mixes them: one agent for all would only cut names short.
  const mixed = new Set(rows.flatMap((row) => (row.agent ? [row.agent] : []))).size > 1;
  const lines = rows.map((row, i): Line => {
    const active = isActiveStatus(row.status);
    if (active) running = i;
    const next = row.codonId === idle?.nextCodonId;
    const passed = passedOver.has(row.codonId);
    const chosen = selecting && row.codonId === selected;
    const text = codonLine(
      passed ? { ...row, note: PASSED_OVER } : row,
      selecting ? width - 2 : width,
      now,
      next,
      mixed,
    );
    return {
      text: selecting ? `${chosen ? '›' : ' '} ${text}` : text,
      tone: waitsForUsage(row)
        ? 'warn'
        : next && row.status === 'pending'
          ? 'accent'
          : STATUS_TONE[row.status],
      bold: active || next || chosen,
      // While a codon is selected, the selection is the one inverse line.
      highlight: selecting ? chosen : active,
      ...((row.note === UNDONE || passed) && !next ? { dim: true } : {}),
    };
  });
  if (!planKnown && idle?.reason !== 'all-codons-completed') {
    lines.push({ text: '… later codons appear when they start', tone: 'muted', dim: true });
  }
  const at = selecting ? rows.findIndex((row) => row.codonId === selected) : -1;
  return {
    lines,
    ...(running === undefined ? {} : { running }),
    ...(at === -1 ? {} : { selected: at }),
  };
}

/** One codon's line; `next` when the server named it as the codon codon.next starts. */
export function codonLine(
  row: CodonRow,
  width: number,
  now: number,
  next = false,
  showAgent = false,
): string {
  const elapsed =
    row.duration ??
    (isActiveStatus(row.status) && row.startTime ? now - Date.parse(row.startTime) : undefined);
  // A pending codon that is next says so; an ended one (a failed codon retried) keeps its status.
  const waiting = next && row.status === 'pending';
  const word = waiting
    ? 'next'
    : waitsForUsage(row)
      ? USAGE_WAIT_SHORT
      : waitsForApproval(row)
        ? APPROVAL_WAIT_SHORT
        : (attemptWord(row) ?? row.note ?? row.status);
  // An estimate's `~` stands out to the left of the column.
  const cost = formatCost(row.cost, row.costEstimated).padStart(7);
  const time = (elapsed === undefined ? '' : formatDuration(elapsed)).padStart(6);
  // Automatic attempts show in the status word; the model when the fallback runs the codon.
  const fallback = fallbackModelOf(row);
  const attempts = fallback ? ` ${fallback}` : row.attempts > 1 && !row.retry ? ` ×${row.attempts}` : '';
  // A status word of the column's whole width (`usage limit`) still leaves a space before the cost.
  const status = padTo(word, 11);
  const right =
    width >= 44 ? ` ${status}${status.endsWith(' ') ? '' : ' '}${cost} ${time}` : ` ${cost} ${time}`;
  const name =
    row.codonName && row.codonName !== row.codonId ? `${row.codonId} ${row.codonName}` : row.codonId;
  const labelWidth = Math.max(4, width - 2 - right.length);
  // The agent that runs it (when the plan mixes agents), once the server has said: at the label's
  // end, the name cut before it is.
  const agent = showAgent && row.agent && labelWidth - row.agent.length - 1 >= 8 ? ` ${row.agent}` : '';
  const label = `${padTo(`${name}${attempts}`, labelWidth - agent.length)}${agent}`;
  const icon = waitsForUsage(row)
    ? USAGE_WAIT_ICON
    : waitsForApproval(row)
      ? APPROVAL_WAIT_ICON
      : waiting
        ? NEXT_ICON
        : STATUS_ICON[row.status];
  return `${icon} ${label}${right}`;
}
