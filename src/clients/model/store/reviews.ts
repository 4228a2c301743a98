import type { EventData, ReviewTarget, ServerEventOf } from '../../../core/protocol/index.ts';
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

const TARGET_WORDS: Record<ReviewTarget, string> = {
  redo: 'to a redo of',
  message: 'as a message to the agent of',
  next: 'to the next codon after',
};

/** `review of two sent to a redo of two (2 comments)`, `... to the next codon after two (three)`. */
export function reviewSentLine(d: EventData<'review.sent'>, reader?: Reader): string {
  const n = d.commentIds.length;
  const target = `${TARGET_WORDS[d.to]} ${d.codonId}`;
  const which = d.to === 'next' && d.targetCodonId ? ` (${d.targetCodonId})` : '';
  return `✉ ${senderLabel(d.by, reader)} sent the review of ${d.codonId} ${target}${which} (${n} comment${n === 1 ? '' : 's'})`;
}

/** Where a sent comment went, as its mark says it: `sent to redo`, `sent to next (three)`. */
export function sentMark(sent: CommentSent): string {
  return `sent to ${sent.to}${sent.targetCodonId && sent.to === 'next' ? ` (${sent.targetCodonId})` : ''}`;
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

/** A codon's comments no review has sent yet: what `review.submit` without commentIds sends. */
export function unsentComments(
  state: Pick<RunState, 'reviews'>,
  codonId: string,
): readonly ReviewCommentView[] {
  return codonComments(state, codonId).filter((c) => c.sent.length === 0);
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
