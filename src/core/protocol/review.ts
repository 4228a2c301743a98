import { z } from 'zod';
import { MessageSender } from './codon-message.ts';
import { ours } from './extension.ts';
import { REVIEW_NOTE_MAX_BYTES, REVIEW_TEXT_MAX_BYTES } from './message-size.ts';

/**
 * Ours: reviewing a codon's changes (docs/review.md). A person (or a sentinel) comments on lines of a
 * codon's diff; the comments are journaled, and a review sends them on: the codon redone from its start
 * with them in its prompt, a message to the running agent, or the next codon's prompt.
 */

const Sha = z.string().regex(/^[0-9a-fA-F]{4,64}$/, 'a git SHA (4-64 hex digits)');

/** The quoted lines a comment is about, at most this many UTF-8 bytes (longer quotes are cut, marked). */
export const REVIEW_HUNK_MAX_BYTES = 16 * 1024;
/** A comment's text and a review's note at most (UTF-8 bytes): message-size.ts, without zod for the page. */
export { REVIEW_NOTE_MAX_BYTES, REVIEW_TEXT_MAX_BYTES };

/** Something besides white space, at most `maxBytes` of UTF-8 (as MessageText, with a smaller limit). */
function boundedText(maxBytes: number) {
  const error = `at most ${maxBytes} bytes of UTF-8`;
  return (
    z
      .string()
      .min(1, 'must not be empty')
      // Characters first (a UTF-8 byte count is never below it), then the bytes themselves.
      .max(maxBytes, { abort: true, error })
      .refine((text) => text.trim() !== '', 'must hold more than white space')
      .refine((text) => new TextEncoder().encode(text).length <= maxBytes, error)
  );
}

/** Comments a review sends at most. */
export const REVIEW_MAX_COMMENTS = 200;

/** Lines of one side of a file's diff, 1-based and inclusive. */
export const ReviewLines = z
  .object({ start: z.number().int().min(1), end: z.number().int().min(1) })
  .refine((l) => l.end >= l.start, 'lines.end must not be before lines.start');
export type ReviewLines = z.infer<typeof ReviewLines>;

/**
 * Which file a comment's lines count in: `new` the file after the change (added and unchanged lines),
 * `old` the file before it (deleted lines).
 */
export const ReviewSide = z.enum(['new', 'old']);
export type ReviewSide = z.infer<typeof ReviewSide>;

export const ReviewCommentRequest = ours(
  z.object({
    codonId: z.string().min(1),
    /**
     * The checkpoints the diff was between. Absent: the codon's last run in the current lineage, from
     * its start checkpoint to its end one.
     */
    from: Sha.optional(),
    to: Sha.optional(),
    /** Relative to the agent root, as checkpoint.diff names it. */
    file: z.string().min(1).max(4096),
    side: ReviewSide.default('new'),
    lines: ReviewLines,
    /** At most REVIEW_TEXT_MAX_BYTES of UTF-8. */
    text: boundedText(REVIEW_TEXT_MAX_BYTES),
  }),
  'A comment on lines of a codon’s diff; answered by the review.comment event (the server quotes the lines).',
);
export type ReviewCommentRequest = z.infer<typeof ReviewCommentRequest>;

/** Where a review sends its comments. */
export const ReviewTarget = z.enum(['redo', 'message', 'next']);
export type ReviewTarget = z.infer<typeof ReviewTarget>;

export const ReviewSubmitRequest = ours(
  z.object({
    codonId: z.string().min(1),
    /**
     * `redo`: the codon runs again from its start checkpoint with the review in its prompt; `message`:
     * the review goes to the running agent as a codon.message; `next`: the next codon to start carries
     * it in its prompt.
     */
    to: ReviewTarget,
    /** The comments to send (ids from review.comment). Absent: every comment on the codon not yet sent. */
    commentIds: z.array(z.string().min(1)).min(1).max(REVIEW_MAX_COMMENTS).optional(),
    /** A word to the agent above the comments, at most REVIEW_NOTE_MAX_BYTES of UTF-8. */
    note: boundedText(REVIEW_NOTE_MAX_BYTES).optional(),
  }),
  'Sends a codon’s review comments on: redo the codon with them, message the running agent, or carry them into the next codon.',
);
export type ReviewSubmitRequest = z.infer<typeof ReviewSubmitRequest>;

export const ReviewComment = z.object({
  commentId: z.string(),
  codonId: z.string(),
  /** The full SHAs of the checkpoints the diff was between. */
  from: z.string(),
  to: z.string(),
  file: z.string(),
  side: ReviewSide,
  lines: ReviewLines,
  /** The commented lines as the diff shows them, each with its `+`, `-` or space, and a line of context around. */
  hunk: z.string(),
  /** The quote was cut at REVIEW_HUNK_MAX_BYTES. */
  hunkTruncated: z.literal(true).optional(),
  text: z.string(),
  /** Who wrote it: a client (by its clientId) or a sentinel's `comment` action. */
  author: MessageSender,
});
export type ReviewComment = z.infer<typeof ReviewComment>;

export const reviewEvents = {
  'review.comment': ours(ReviewComment, 'A comment on lines of a codon’s diff, by a client or a sentinel.'),
  'review.sent': ours(
    z.object({
      reviewId: z.string(),
      codonId: z.string(),
      to: ReviewTarget,
      commentIds: z.array(z.string()),
      /** The review as the agent reads it (note, then each comment with its file, lines and quote). */
      text: z.string(),
      /** For `next`: the codon that will carry it; for `redo`: the codon redone; for `message`: the running one. */
      targetCodonId: z.string().optional(),
      by: MessageSender,
    }),
    'Review comments sent on, and where: a redo of the codon, a message to the running agent, or the next codon’s prompt.',
  ),
};
