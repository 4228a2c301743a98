import { MESSAGE_MAX_BYTES, type ReviewComment } from '../../core/protocol/index.ts';
import { cutQuote } from './quote.ts';

/**
 * The review as the agent reads it (docs/review.md#what-the-agent-reads): a heading that says whose
 * changes it is about, the note, then each comment with its file, its lines and side, the quoted lines
 * in a fenced diff block, and the comment. Plain text, so every agent reads it the same. Pure.
 */

export type ReviewInput = {
  codonId: string;
  note?: string | undefined;
  comments: readonly Pick<ReviewComment, 'file' | 'side' | 'lines' | 'hunk' | 'hunkTruncated' | 'text'>[];
};

const SIDE_WORDS = {
  new: 'new side: the file after the change',
  old: 'old side: the file before the change',
} as const;

/** A fence longer than any run of backticks in the quote, so the quote cannot close it. */
function fence(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

function render(input: ReviewInput, hunkBytes: number | undefined): string {
  const n = input.comments.length;
  const parts = [
    `Review of the changes of codon ${input.codonId} (${n} comment${n === 1 ? '' : 's'}). Address each comment.`,
  ];
  if (input.note?.trim()) parts.push(input.note.trim());
  input.comments.forEach((c, i) => {
    const { start, end } = c.lines;
    const lines = start === end ? `line ${start}` : `lines ${start}-${end}`;
    const cut = hunkBytes === undefined ? undefined : cutQuote(c.hunk, hunkBytes);
    const hunk = cut?.hunk ?? c.hunk;
    const truncated = c.hunkTruncated === true || cut?.truncated === true;
    const f = fence(hunk);
    parts.push(
      [
        `${i + 1}. ${c.file}, ${lines} (${SIDE_WORDS[c.side]})${truncated ? ', quote cut' : ''}:`,
        `${f}diff`,
        hunk,
        f,
        `Comment: ${c.text}`,
      ].join('\n'),
    );
  });
  return parts.join('\n\n');
}

const bytes = (text: string) => new TextEncoder().encode(text).length;

/**
 * The review's text, within MESSAGE_MAX_BYTES (it goes to the agent as a message or in a prompt): the
 * quotes are shortened evenly when the whole is too long; undefined when even the comments alone
 * do not fit (send fewer at a time).
 */
export function reviewText(input: ReviewInput): string | undefined {
  const whole = render(input, undefined);
  if (bytes(whole) <= MESSAGE_MAX_BYTES) return whole;
  const bare = render(input, 0);
  const room = MESSAGE_MAX_BYTES - bytes(bare);
  if (room < 0) return undefined;
  const each = Math.floor(room / Math.max(1, input.comments.length));
  const fitted = render(input, each);
  return bytes(fitted) <= MESSAGE_MAX_BYTES ? fitted : bare;
}
