import {
  type MessageSender,
  type ReviewComment,
  type ReviewTarget,
  reviewEvents,
} from '../../core/protocol/index.ts';
import type { Journal } from '../../execution/journal/journal.ts';

/**
 * What the journal says of reviews (docs/review.md): the comments on a codon and which were sent, and
 * the reviews sent to `next` that no codon has taken into its prompt yet. The engine keeps none of it
 * in memory, so a restarted server reads the same. Pure over the events; `journalReviews` is the shell.
 */

export type SentReview = {
  seq: number;
  reviewId: string;
  codonId: string;
  to: ReviewTarget;
  commentIds: string[];
  text: string;
  targetCodonId?: string;
  by: MessageSender;
};

/** The rows the pure functions read: their position in the journal, type and payload. */
export type ReviewRow = { seq: number; type: string; data: unknown };

export function parseComment(data: unknown): ReviewComment | undefined {
  const parsed = reviewEvents['review.comment'].safeParse(data);
  return parsed.success ? parsed.data : undefined;
}

export function parseSent(row: ReviewRow): SentReview | undefined {
  const parsed = reviewEvents['review.sent'].safeParse(row.data);
  if (!parsed.success) return undefined;
  const d = parsed.data;
  return {
    seq: row.seq,
    reviewId: d.reviewId,
    codonId: d.codonId,
    to: d.to,
    commentIds: d.commentIds,
    text: d.text,
    ...(d.targetCodonId === undefined ? {} : { targetCodonId: d.targetCodonId }),
    by: d.by,
  };
}

/**
 * The reviews sent to `next` that wait for a codon to start: sent after the newest codon.started
 * (`lastStartedSeq`), and whose text no codon.message `prompt` after them carried (a start a crash
 * cut short between the two: the carry-over takes the text from there).
 */
export function pendingNext(
  sent: readonly SentReview[],
  lastStartedSeq: number,
  prompts: readonly ReviewRow[],
): SentReview[] {
  const carried = (r: SentReview) =>
    prompts.some((p) => {
      const d = p.data as { text?: unknown; delivery?: unknown } | undefined;
      return p.seq > r.seq && d?.delivery === 'prompt' && d.text === r.text;
    });
  return sent.filter((r) => r.to === 'next' && r.seq > lastStartedSeq && !carried(r));
}

/** The journal's reviews, read when asked (comments and reviews are few: their types are indexed). */
export type ReviewReads = {
  comments(codonId: string): ReviewComment[];
  /** Ids of the codon's comments some review has sent. */
  sentIds(codonId: string): Set<string>;
  /** Ids of the codon's comments made before its latest start (codon.started): on an earlier run. */
  earlierIds(codonId: string): Set<string>;
  pendingNext(): SentReview[];
};

/** No journal (tests that build an orchestrator without one): no comments, nothing pending. */
export const noReviews: ReviewReads = {
  comments: () => [],
  sentIds: () => new Set(),
  earlierIds: () => new Set(),
  pendingNext: () => [],
};

/** The codon's newest codon.started, walking back through the others' (a codon starts once per step). */
function lastStartOf(journal: Journal, codonId: string): number | undefined {
  let before: number | undefined;
  for (;;) {
    const row = journal.lastOf(['codon.started'], before);
    if (!row) return undefined;
    const data = (JSON.parse(row.json) as { data?: { codonId?: unknown } }).data;
    if (data?.codonId === codonId) return row.seq;
    before = row.seq;
  }
}

export function journalReviews(journal: Journal): ReviewReads {
  const rows = (type: 'review.comment' | 'review.sent'): ReviewRow[] =>
    journal.ofIndexedType(type).map((r) => ({
      seq: r.seq,
      type: r.type,
      data: (JSON.parse(r.json) as { data?: unknown }).data,
    }));
  const sent = () => rows('review.sent').flatMap((r) => parseSent(r) ?? []);
  return {
    comments: (codonId) =>
      rows('review.comment').flatMap((r) => {
        const c = parseComment(r.data);
        return c?.codonId === codonId ? [c] : [];
      }),
    earlierIds: (codonId) => {
      const started = lastStartOf(journal, codonId);
      if (started === undefined) return new Set();
      return new Set(
        rows('review.comment').flatMap((r) => {
          const c = parseComment(r.data);
          return c?.codonId === codonId && r.seq < started ? [c.commentId] : [];
        }),
      );
    },
    sentIds: (codonId) =>
      new Set(
        sent()
          .filter((r) => r.codonId === codonId)
          .flatMap((r) => r.commentIds),
      ),
    pendingNext: () => {
      const lastStarted = journal.lastOf(['codon.started'])?.seq ?? 0;
      const waiting = sent().filter((r) => r.to === 'next' && r.seq > lastStarted);
      const from = waiting[0]?.seq;
      if (from === undefined) return [];
      return pendingNext(waiting, lastStarted, promptsAfter(journal, from));
    },
  };
}

/** codon.message rows after `seq` (few: no codon started since a review waiting for one). */
function promptsAfter(journal: Journal, seq: number): ReviewRow[] {
  const out: ReviewRow[] = [];
  let after = seq;
  for (;;) {
    const batch = journal.readAfter(after, { maxEvents: 1_000, maxBytes: 8 * 1024 * 1024 });
    if (batch.length === 0) return out;
    for (const row of batch)
      if (row.type === 'codon.message')
        out.push({ seq: row.seq, type: row.type, data: (JSON.parse(row.json) as { data?: unknown }).data });
    after = batch.at(-1)?.seq ?? after;
  }
}
