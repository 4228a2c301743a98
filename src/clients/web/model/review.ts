import type { ReviewComment, ReviewSide, ReviewTarget } from '../../../core/protocol/index.ts';

/**
 * The Changes view's review (pure; docs/review.md): the lines a person picks for a comment, which
 * comments stand under which line, and how a comment's state reads.
 */

/** Where a review sent a comment (review.sent). */
export type CommentSent = { to: ReviewTarget; reviewId: string; targetCodonId?: string };
/**
 * A comment as the page shows it (the client model's review view is one): the journaled comment,
 * and every review that sent it, oldest first.
 */
export type CommentView = ReviewComment & {
  sent: readonly CommentSent[];
  /** Not sent, and made before the codon's latest start: a review leaves it unless it is named. */
  earlier?: true;
};

/** The codon's comments, those on an earlier run of it marked (the client model's onEarlierRun). */
export function markEarlier<C extends CommentView>(
  comments: readonly C[],
  isEarlier: (comment: C) => boolean,
): C[] {
  return comments.map((c) => (isEarlier(c) ? { ...c, earlier: true } : c));
}

/**
 * Lines picked for a comment: one side of one hunk of one file, `anchor` the line picked first;
 * `hint` says why a second click started anew rather than making a range.
 */
export type LinePick = {
  file: string;
  side: ReviewSide;
  hunk: number;
  start: number;
  end: number;
  anchor: number;
  hint?: string;
};

/**
 * A click (or tap) on a line's number. The first picks that line; a second on another line of the
 * same side and hunk picks the range between them (a phone has no shift: tap, then tap); shift extends
 * whatever is picked; the same line again lets go; after a range, a click starts anew. A comment quotes
 * one hunk (the server refuses a range across two), so a click in another hunk, side or file starts a
 * new pick there, and says why.
 */
export function pickLine(
  pick: LinePick | undefined,
  at: { file: string; side: ReviewSide; hunk: number; line: number },
  extend: boolean,
): LinePick | undefined {
  const fresh = {
    file: at.file,
    side: at.side,
    hunk: at.hunk,
    start: at.line,
    end: at.line,
    anchor: at.line,
  };
  if (!pick || pick.file !== at.file || !(extend || pick.start === pick.end)) return fresh;
  if (pick.side !== at.side)
    return { ...fresh, hint: 'a comment is on one side: a new pick started on this side' };
  if (pick.hunk !== at.hunk)
    return { ...fresh, hint: 'a comment covers lines of one hunk: a new pick started in this hunk' };
  if (!extend && at.line === pick.anchor) return undefined;
  const { hint: _hint, ...kept } = pick;
  return { ...kept, start: Math.min(pick.anchor, at.line), end: Math.max(pick.anchor, at.line) };
}

/** Whether line `no` of `side` of `file` is picked. */
export function isPicked(pick: LinePick | undefined, file: string, side: ReviewSide, no: number | undefined) {
  return (
    pick !== undefined &&
    no !== undefined &&
    pick.file === file &&
    pick.side === side &&
    no >= pick.start &&
    no <= pick.end
  );
}

/** Two SHAs name the same checkpoint (one may be short). */
const sameSha = (a: string, b: string) =>
  a.length > 0 && b.length > 0 && (a.startsWith(b) || b.startsWith(a));

/** The comment was made on this diff (the same two checkpoints): its lines are this diff's lines. */
export const onDiff = (c: ReviewComment, from: string, to: string) =>
  sameSha(c.from, from) && sameSha(c.to, to);

/**
 * The comments to show under a diff line: those on this diff, this file and side, whose last line it is.
 */
export function commentsUnder(
  comments: readonly CommentView[],
  at: { from: string; to: string; file: string; side: ReviewSide; no: number | undefined },
): CommentView[] {
  if (at.no === undefined) return [];
  return comments.filter(
    (c) => c.file === at.file && c.side === at.side && c.lines.end === at.no && onDiff(c, at.from, at.to),
  );
}

/** The comments that cover line `no` of this diff's file and side: the line's gutter marks them. */
export function commentsOn(
  comments: readonly CommentView[],
  at: { from: string; to: string; file: string; side: ReviewSide; no: number | undefined },
): CommentView[] {
  const no = at.no;
  if (no === undefined) return [];
  return comments.filter(
    (c) =>
      c.file === at.file &&
      c.side === at.side &&
      c.lines.start <= no &&
      no <= c.lines.end &&
      onDiff(c, at.from, at.to),
  );
}

/** A comment too long to show whole at first: more than a few lines, or a long paragraph. */
export const isLong = (text: string) => text.length > 320 || text.split('\n').length > 4;

/** `a.ts:4` or `a.ts:4-9`, with `(old)` for lines of the file before the change. */
export function linesWord(c: {
  file: string;
  side: ReviewSide;
  lines: { start: number; end: number };
}): string {
  const lines = c.lines.start === c.lines.end ? `${c.lines.start}` : `${c.lines.start}-${c.lines.end}`;
  return `${c.file}:${lines}${c.side === 'old' ? ' (old)' : ''}`;
}

/** Where a review goes, as the dialog and the comments' state say it. */
export const TARGET_WORDS: Readonly<Record<ReviewTarget, string>> = {
  redo: 'redo',
  message: 'message to the running agent',
  next: 'next codon',
};

/** Not sent by any review yet. */
/** Not sent yet and on the codon's latest run: what "Send review" sends. */
export const isUnsent = (c: CommentView) => c.sent.length === 0 && c.earlier !== true;

/**
 * A comment's state, by the last review that sent it: `unsent`, `sent · redo`, `sent · message to
 * the running agent (two)`, `sent · next codon (three)`.
 */
export function commentState(c: CommentView): string {
  const last = c.sent.at(-1);
  if (!last) return c.earlier ? 'not sent · on an earlier run' : 'unsent';
  const target = last.targetCodonId && last.to !== 'redo' ? ` (${last.targetCodonId})` : '';
  return `sent · ${TARGET_WORDS[last.to]}${target}`;
}

/** A review's possible destinations for the send dialog: each available, or why not. */
export function reviewChoices(running: string | undefined): { to: ReviewTarget; unavailable?: string }[] {
  return [
    { to: 'redo' },
    running === undefined ? { to: 'message', unavailable: 'no codon is running' } : { to: 'message' },
    { to: 'next' },
  ];
}
