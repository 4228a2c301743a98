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

/**
 * Text a person typed, as the agent reads it: without terminal control sequences (ESC ... , BEL and
 * the other C0 and C1 controls but newline and tab), which would reach the agent's prompt raw. The
 * journal keeps the comment as typed; the UIs show it safely.
 */
export function agentText(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === ESC) {
      i = afterEscape(text, i);
      continue;
    }
    const control = code < 0x20 ? code !== 0x0a && code !== 0x09 : code >= 0x7f && code <= 0x9f;
    if (!control) out += text[i];
    i += 1;
  }
  return out;
}

const ESC = 0x1b;

/** Where an escape sequence starting at `at` ends: CSI (ESC [ ... final) and OSC (ESC ] ... BEL or ESC \) whole. */
function afterEscape(text: string, at: number): number {
  const kind = text[at + 1];
  if (kind === '[') {
    let i = at + 2;
    while (i < text.length && !/[@-~]/.test(text[i] ?? '')) i += 1;
    return i + 1;
  }
  if (kind === ']') {
    let i = at + 2;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (code === 0x07) return i + 1;
      if (code === ESC) return text[i + 1] === '\\' ? i + 2 : i;
      i += 1;
    }
    return i;
  }
  // ESC and the one character of a two-character sequence.
  return kind !== undefined && /[@-_]/.test(kind) ? at + 2 : at + 1;
}

/** A file's name at most this many characters in a review that does not fit otherwise (cut in the middle). */
const SHORT_FILE_CHARS = 200;

function shortFile(file: string): string {
  if (file.length <= SHORT_FILE_CHARS) return file;
  const half = Math.floor((SHORT_FILE_CHARS - 1) / 2);
  return `${file.slice(0, half)}…${file.slice(-half)}`;
}

function render(input: ReviewInput, hunkBytes: number | undefined, shortFiles = false): string {
  const n = input.comments.length;
  const parts = [
    `Review of the changes of codon ${input.codonId} (${n} comment${n === 1 ? '' : 's'}). Address each comment.`,
  ];
  const note = agentText(input.note ?? '').trim();
  if (note) parts.push(note);
  input.comments.forEach((c, i) => {
    const { start, end } = c.lines;
    const lines = start === end ? `line ${start}` : `lines ${start}-${end}`;
    const cut = hunkBytes === undefined ? undefined : cutQuote(c.hunk, hunkBytes);
    const hunk = cut?.hunk ?? c.hunk;
    const truncated = c.hunkTruncated === true || cut?.truncated === true;
    const f = fence(hunk);
    parts.push(
      [
        `${i + 1}. ${shortFiles ? shortFile(c.file) : c.file}, ${lines} (${SIDE_WORDS[c.side]})${truncated ? ', quote cut' : ''}:`,
        `${f}diff`,
        hunk,
        f,
        `Comment: ${agentText(c.text)}`,
      ].join('\n'),
    );
  });
  return parts.join('\n\n');
}

const bytes = (text: string) => new TextEncoder().encode(text).length;

/**
 * The review's text, within MESSAGE_MAX_BYTES (it goes to the agent as a message or in a prompt): the
 * quotes are shortened evenly when the whole is too long (and very long file names cut in the
 * middle); undefined when even the comments alone do not fit (send fewer at a time). One comment
 * (at most REVIEW_TEXT_MAX_BYTES) with a note (at most REVIEW_NOTE_MAX_BYTES) always fits.
 */
export function reviewText(input: ReviewInput): string | undefined {
  const whole = render(input, undefined);
  if (bytes(whole) <= MESSAGE_MAX_BYTES) return whole;
  let shortFiles = false;
  let bare = render(input, 0);
  if (bytes(bare) > MESSAGE_MAX_BYTES) {
    shortFiles = true;
    bare = render(input, 0, true);
  }
  const room = MESSAGE_MAX_BYTES - bytes(bare);
  if (room < 0) return undefined;
  const each = Math.floor(room / Math.max(1, input.comments.length));
  const fitted = render(input, each, shortFiles);
  return bytes(fitted) <= MESSAGE_MAX_BYTES ? fitted : bare;
}

/** Why a review does not fit a message: fewer comments help only when there are several. */
export function tooBigMessage(count: number): string {
  return count === 1
    ? 'the review of 1 comment does not fit a message (32 KiB) even without its quote; shorten its note'
    : `the review of ${count} comments does not fit a message (32 KiB) even without their quotes; send fewer at a time (commentIds)`;
}
