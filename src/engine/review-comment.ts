import { randomUUID } from 'node:crypto';
import {
  type ErrorCode,
  type EventInput,
  type MessageSender,
  REVIEW_TEXT_MAX_BYTES,
  type ReviewComment,
  type ReviewLines,
  type ReviewSide,
} from '../core/protocol/index.ts';
import { err, ok, type Result } from '../core/result.ts';
import type { CheckpointRecord } from '../execution/checkpoints/index.ts';
import { type EngineState, latestRunId } from '../execution/state/reducer.ts';
import type { Checkpointing } from './checkpointing.ts';
import { cutQuote, quoteLines } from './review/quote.ts';
import { unknownCodonMessage } from './unknown-codon.ts';

/** Unchanged lines around each change in the diff a comment is checked against (checkpoint.diff's default). */
export const REVIEW_CONTEXT_LINES = 3;

export type Failure = { code: ErrorCode; message: string };

/** What a comment names: the request of review.comment, or a sentinel's `comment` action. */
export type CommentInput = {
  codonId: string;
  from?: string | undefined;
  to?: string | undefined;
  file: string;
  side: ReviewSide;
  lines: ReviewLines;
  text: string;
};

export type CommentDeps = {
  planName: string;
  planCodonIds: readonly string[];
  state: () => EngineState;
  checkpoints: Checkpointing;
  /** The codon running now, if one is. */
  running: () => string | undefined;
  publish: (type: 'review.comment', data: EventInput<'review.comment'>) => Promise<unknown>;
};

/**
 * review.comment (docs/review.md#comments): the checkpoints the diff was between (absent: the codon's
 * last run in the current lineage, start to end), the file's diff between them, the quote of the lines;
 * then the comment is journaled. A codon, checkpoint, file or lines it cannot find are refused, saying
 * what there is.
 */
export async function makeComment(
  d: CommentDeps,
  input: CommentInput,
  author: MessageSender,
): Promise<Result<ReviewComment, Failure>> {
  const range = await resolveRange(d, input);
  if (!range.ok) return range;
  const { from, to } = range.value;
  const diff = await d.checkpoints.diff({
    from,
    to,
    path: input.file,
    contextLines: REVIEW_CONTEXT_LINES,
  });
  if (!diff.ok) return diff;
  const file = diff.value.files.find((f) => f.path === input.file);
  if (!file) {
    const between = `${from.slice(0, 12)}..${to.slice(0, 12)}`;
    return err({
      code: 'UNKNOWN_COMMENT',
      message: `${input.file} did not change between ${between} (codon ${input.codonId}'s diff); checkpoint.diff lists the files it changed`,
    });
  }
  const quote = quoteLines(file, input.side, input.lines);
  if (!quote.ok) return err({ code: 'UNKNOWN_COMMENT', message: quote.message });
  const comment: ReviewComment = {
    commentId: `comment-${randomUUID()}`,
    codonId: input.codonId,
    from,
    to,
    file: input.file,
    side: input.side,
    lines: input.lines,
    hunk: quote.hunk,
    ...(quote.truncated ? { hunkTruncated: true as const } : {}),
    // A sentinel's text may be longer than a client's may (REVIEW_TEXT_MAX_BYTES): cut to it.
    text: cutQuote(input.text, REVIEW_TEXT_MAX_BYTES).hunk,
    author,
  };
  await d.publish('review.comment', comment);
  return ok(comment);
}

/** The full SHAs of the diff: those named, else the codon's start and end in the current lineage. */
async function resolveRange(
  d: CommentDeps,
  input: CommentInput,
): Promise<Result<{ from: string; to: string }, Failure>> {
  let lineage: CheckpointRecord[] | undefined;
  const inLineage = async (): Promise<Result<CheckpointRecord[], Failure>> => {
    if (lineage) return ok(lineage);
    const runId = latestRunId(d.state());
    if (!runId)
      return err({ code: 'CHECKPOINT_NOT_FOUND', message: 'no run has begun yet, so no codon has a diff' });
    const listed = await d.checkpoints.lineage(runId);
    if (listed.ok) lineage = listed.value;
    return listed;
  };
  if (!d.planCodonIds.includes(input.codonId)) {
    const records = await inLineage();
    if (!records.ok) return records;
    if (!records.value.some((c) => c.codonId === input.codonId))
      return err({
        code: 'UNKNOWN_CODON',
        message: unknownCodonMessage(input.codonId, d.planName, d.planCodonIds),
      });
  }
  // Its start would be this run's and its end the run before's: a diff that is no run's.
  if ((input.from === undefined || input.to === undefined) && d.running() === input.codonId)
    return err({
      code: 'CODON_RUNNING',
      message: `codon ${input.codonId} is running, so its diff has no end yet; comment once it has ended, or name from and to`,
    });
  const end = async (type: 'start' | 'end', sha: string | undefined): Promise<Result<string, Failure>> => {
    if (sha !== undefined) {
      const found = await d.checkpoints.bySha(sha);
      return found.ok ? ok(found.value.sha) : found;
    }
    const records = await inLineage();
    if (!records.ok) return records;
    const found = d.checkpoints.byCodon(records.value, input.codonId, type);
    if (found.ok) return ok(found.value.sha);
    // A rollback began a run without it: its earlier run's checkpoints are still there to name.
    return err({
      ...found.error,
      message: `${found.error.message} A diff of an earlier run can still be commented: give from and to (its checkpoints, e.g. from checkpoint.list).`,
    });
  };
  const from = await end('start', input.from);
  if (!from.ok) return from;
  const to = await end('end', input.to);
  if (!to.ok) return to;
  return ok({ from: from.value, to: to.value });
}
