import { formatCost, formatDuration, formatTime, oneLine } from '../../../model/format.ts';
import { attemptWord, fallbackModelOf } from '../../../model/store/codons.ts';
import { senderLabel } from '../../../model/store/messages.ts';
import type { ReviewCommentView } from '../../../model/store/review-view.ts';
import {
  commentPlace,
  EARLIER_RUN_MARK,
  onEarlierRun,
  quotePreview,
  sentMark,
} from '../../../model/store/reviews.ts';
import type { CodonRow, RunState } from '../../../model/store/run-state.ts';
import { failureKind } from '../../../model/usage-wait.ts';
import { wrapText } from '../fit-text.ts';
import type { Line } from '../lines.ts';
import { STATUS_ICON } from './codon-lines.ts';

/** A codon's details (enter on a selected codon): what the UI knows of it, and what can be done. */
export function codonDetailLines(
  row: CodonRow | undefined,
  codonId: string,
  options: {
    plan: RunState['connection']['plan'];
    readonly: boolean;
    width: number;
    now: number;
    /** Its review comments, oldest first (docs/review.md). */
    comments?: readonly ReviewCommentView[];
    /** This UI's client ids: their comments are "you". */
    clientIds?: readonly string[];
  },
): Line[] {
  if (row === undefined) return [{ text: `Codon ${codonId} is no longer listed.`, tone: 'muted' }];
  const planned = options.plan?.codons.find((c) => c.codonId === codonId);
  const lines: Line[] = [
    {
      text: `${STATUS_ICON[row.status]} ${row.codonId}${row.codonName && row.codonName !== row.codonId ? ` · ${oneLine(row.codonName, 80)}` : ''}`,
      bold: true,
    },
    { text: '' },
  ];
  const field = (name: string, value: string | undefined) => {
    if (value !== undefined && value !== '') lines.push({ text: `  ${name.padEnd(12)} ${value}` });
  };
  const total = options.plan?.codons.length;
  const index = planned?.index ?? row.index;
  field('status', [attemptWord(row) ?? row.status, row.note].filter(Boolean).join(' · '));
  field('position', index === undefined ? undefined : `${index + 1}${total ? ` of ${total}` : ''}`);
  field('started', row.startTime ? formatTime(row.startTime) : undefined);
  const elapsed = row.duration ?? (row.startTime ? options.now - Date.parse(row.startTime) : undefined);
  field('duration', elapsed === undefined || Number.isNaN(elapsed) ? undefined : formatDuration(elapsed));
  field(
    'cost',
    row.costEstimated
      ? `${formatCost(row.cost, true)} (estimated: its agent reports tokens, not cost; Ribosome priced them)`
      : formatCost(row.cost),
  );
  field('attempts', row.attempts > 0 ? String(row.attempts) : undefined);
  const tally = [
    row.messages ? `${row.messages.toLocaleString('en-US')} message(s)` : '',
    row.toolCalls ? `${row.toolCalls.toLocaleString('en-US')} tool call(s)` : '',
  ].filter(Boolean);
  field('activity', tally.length > 0 ? tally.join(' · ') : undefined);
  field('agent', row.agent === undefined ? undefined : oneLine(row.agent, 40));
  field('model', fallbackModelOf(row) ?? row.retry?.model);
  const failure = row.failureReason;
  if (failure) {
    const text = `${failureKind(failure, options.now)}${failure.retriable ? ' (retriable)' : ''}${failure.message ? `: ${failure.message}` : ''}`;
    for (const [i, part] of wrapText(oneLine(text, 2_000), Math.max(20, options.width - 16), 6).entries())
      lines.push({ text: `  ${(i === 0 ? 'failure' : '').padEnd(12)} ${part}`, tone: 'bad' });
  }
  if (planned?.description) {
    lines.push({ text: '' });
    for (const part of wrapText(oneLine(planned.description, 2_000), Math.max(20, options.width - 4), 8))
      lines.push({ text: `  ${part}`, tone: 'muted' });
  }
  const comments = options.comments ?? [];
  if (comments.length > 0) {
    // Not sent and made before the codon's latest start: a review without ids leaves them.
    const earlier = comments.filter((c) => onEarlierRun(c, row.startTime)).length;
    const unsent = comments.filter((c) => c.sent.length === 0).length - earlier;
    lines.push({ text: '' });
    const counts = [
      `${comments.length}`,
      `${unsent} not sent`,
      ...(earlier > 0 ? [`${earlier} on an earlier run`] : []),
    ];
    lines.push({ text: `  comments (${counts.join(', ')})`, bold: true });
    for (const c of comments) {
      const stale = onEarlierRun(c, row.startTime);
      const sent = stale
        ? EARLIER_RUN_MARK
        : c.sent.length === 0
          ? 'not sent'
          : c.sent.map(sentMark).join(', ');
      const head = `  ✎ ${commentPlace(c)} · ${senderLabel(c.author, options.clientIds)} · ${sent}`;
      lines.push({ text: oneLine(head, 400), tone: c.sent.length === 0 && !stale ? 'accent' : 'muted' });
      for (const quoted of quotePreview(c.hunk, 3))
        lines.push({ text: `    │ ${oneLine(quoted, Math.max(20, options.width - 8))}`, tone: 'muted' });
      for (const part of clipped(oneLine(c.text, 2_000), Math.max(20, options.width - 6), 4))
        lines.push({ text: `    ${part}` });
    }
  }
  lines.push({ text: '' });
  const keys = options.readonly
    ? '  esc or enter closes'
    : `  g starts this codon (codon.start)${comments.length > 0 ? ' · v sends its review' : ''} · esc or enter closes`;
  lines.push({ text: keys, tone: 'muted' });
  return lines;
}

/** `text` wrapped to at most `maxLines`, the last ending with `…` when some was left out. */
function clipped(text: string, width: number, maxLines: number): string[] {
  const all = wrapText(text, width, maxLines + 1);
  if (all.length <= maxLines) return all;
  const kept = all.slice(0, maxLines);
  const last = Array.from(kept[maxLines - 1] ?? '');
  kept[maxLines - 1] = `${last.slice(0, Math.max(0, Math.min(last.length, width - 1))).join('')}…`;
  return kept;
}
