import type { EventData, ReviewTarget, ServerEventOf } from '../../../core/protocol/index.ts';
import { own } from '../../../core/protocol/own.ts';
import { oneLine } from '../format.ts';
import { note } from './activity.ts';
import { type Reader, senderLabel } from './messages.ts';
import type { CommentSent, ReviewCommentView } from './review-view.ts';
import type { RunState } from './run-state.ts';

/** Review comments folded from review.comment and review.sent (review-view.ts), and the selectors the views read. */

/** `✎ you on two src/a.ts 3-5 (new): text`: a comment in the activity and the log. */
export function commentLine(d: EventData<'review.comment'>, reader?: Reader): string {
  return `✎ ${senderLabel(d.author, reader)} on ${d.codonId} ${commentPlace(d)}: ${oneLine(d.text)}`;
}

/** `src/a.ts 3-5 (new)`, `src/a.ts 7 (old)`: where a comment is. */
export function commentPlace(d: Pick<EventData<'review.comment'>, 'file' | 'lines' | 'side'>): string {
  const { start, end } = d.lines;
  return `${d.file} ${start === end ? start : `${start}-${end}`} (${d.side})`;
}

/** Where a review went, by the codon that took it (targetCodonId; the reviewed codon when absent). */
function targetWords(to: ReviewTarget, target: string | undefined, codonId: string): string {
  switch (to) {
    case 'redo':
      return `to a redo of ${target ?? codonId}`;
    case 'message':
      return `as a message to the agent of ${target ?? 'the running codon'}`;
    case 'next':
      return target ? `into the next codon, ${target}` : 'into the next codon';
  }
}

/** `review of two sent to a redo of two (2 comments)`, `... as a message to the agent of three`, `... into the next codon, three`. */
export function reviewSentLine(d: EventData<'review.sent'>, reader?: Reader): string {
  const n = d.commentIds.length;
  return `✉ ${senderLabel(d.by, reader)} sent the review of ${d.codonId} ${targetWords(d.to, d.targetCodonId, d.codonId)} (${n} comment${n === 1 ? '' : 's'})`;
}

/** Where a sent comment went, as its mark says it: `sent: redo`, `sent as a message to three`, `carried into three`. */
export function sentMark(sent: CommentSent): string {
  switch (sent.to) {
    case 'redo':
      return 'sent: redo';
    case 'message':
      return sent.targetCodonId ? `sent as a message to ${sent.targetCodonId}` : 'sent as a message';
    case 'next':
      return sent.targetCodonId ? `carried into ${sent.targetCodonId}` : 'sent to the next codon';
  }
}

/** The first lines of a comment's quote (`…` when there are more), each at most 200 characters: details and the log show them. */
export function quotePreview(hunk: string, lines = 4): string[] {
  const all = hunk.split('\n');
  const shown = all.slice(0, lines).map((l) => (l.length > 200 ? `${l.slice(0, 199)}…` : l));
  return all.length > lines ? [...shown, '…'] : shown;
}

/** The mark of a comment not sent that was made before its codon's latest start (docs/review.md#sending-a-review). */
export const EARLIER_RUN_MARK = 'not sent, on an earlier run';

/**
 * Whether a comment is on an earlier run of its codon: not sent, and made before the codon's latest
 * start (`startTime`, its row's). A review without commentIds leaves it; naming it sends it.
 */
export function onEarlierRun(
  comment: Pick<ReviewCommentView, 'at' | 'sent'>,
  startTime: string | undefined,
): boolean {
  return comment.sent.length === 0 && startTime !== undefined && comment.at < startTime;
}

export function reviewComment(state: RunState, e: ServerEventOf<'review.comment'>): RunState {
  const d = e.data;
  const comments = state.reviews.byCodon[d.codonId] ?? [];
  // A history folded again from the journal sees the same comment once.
  if (comments.some((c) => c.commentId === d.commentId)) return state;
  const view: ReviewCommentView = { ...d, eventId: e.id, at: e.timestamp, sent: [] };
  const reviews = { byCodon: { ...state.reviews.byCodon, [d.codonId]: [...comments, view] } };
  return note({ ...state, reviews }, e.id, commentLine(d, state.connection.clientIds), 'info');
}

export function reviewSent(state: RunState, e: ServerEventOf<'review.sent'>): RunState {
  const d = e.data;
  const ids = new Set(d.commentIds);
  const mark: CommentSent = {
    reviewId: d.reviewId,
    to: d.to,
    ...(d.targetCodonId === undefined ? {} : { targetCodonId: d.targetCodonId }),
    at: e.timestamp,
  };
  const comments = (state.reviews.byCodon[d.codonId] ?? []).map((c) =>
    ids.has(c.commentId) && !c.sent.some((s) => s.reviewId === d.reviewId)
      ? { ...c, sent: [...c.sent, mark] }
      : c,
  );
  const reviews = { byCodon: { ...state.reviews.byCodon, [d.codonId]: comments } };
  return note({ ...state, reviews }, e.id, reviewSentLine(d, state.connection.clientIds), 'accent');
}

// --- selectors ----------------------------------------------------------------------------------------

/** A codon's comments, oldest first. */
export function codonComments(
  state: Pick<RunState, 'reviews'>,
  codonId: string,
): readonly ReviewCommentView[] {
  return state.reviews.byCodon[codonId] ?? [];
}

/**
 * A codon's comments no review has sent yet, made since its latest start: what `review.submit`
 * without commentIds sends (those on an earlier run stay).
 */
export function unsentComments(
  state: Pick<RunState, 'reviews'> & Partial<Pick<RunState, 'codons'>>,
  codonId: string,
): readonly ReviewCommentView[] {
  const startTime = state.codons ? own(state.codons, codonId)?.startTime : undefined;
  return codonComments(state, codonId).filter((c) => c.sent.length === 0 && !onEarlierRun(c, startTime));
}

/** How many comments each codon has, and how many of them are not sent yet (codons with none left out). */
export function commentCounts(
  state: Pick<RunState, 'reviews'>,
): Record<string, { total: number; unsent: number }> {
  const counts: Record<string, { total: number; unsent: number }> = {};
  for (const [codonId, comments] of Object.entries(state.reviews.byCodon)) {
    if (comments.length === 0) continue;
    counts[codonId] = {
      total: comments.length,
      unsent: comments.filter((c) => c.sent.length === 0).length,
    };
  }
  return counts;
}
