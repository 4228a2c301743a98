import type { EventData, ReviewTarget } from '../../../core/protocol/index.ts';

/**
 * Review comments as the client model keeps them (docs/review.md): each codon's comments in the order
 * they were made, each with where reviews sent it. Plain data, folded in reviews.ts.
 */

/** Where a review sent a comment: `redo` of the codon, a `message` to the running agent, the `next` codon. */
export type CommentSent = { reviewId: string; to: ReviewTarget; targetCodonId?: string; at: string };

export type ReviewCommentView = EventData<'review.comment'> & {
  /** The review.comment event's id and time. */
  eventId: string;
  at: string;
  /** Every review that sent it, oldest first (a comment may be sent more than once, by its id). */
  sent: CommentSent[];
};

export type ReviewsView = {
  /** By codon id, oldest first. */
  byCodon: Record<string, ReviewCommentView[]>;
};
