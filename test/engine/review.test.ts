import { describe, expect, it } from 'vitest';
import {
  type DiffFile,
  MESSAGE_MAX_BYTES,
  REVIEW_HUNK_MAX_BYTES,
  REVIEW_NOTE_MAX_BYTES,
  REVIEW_TEXT_MAX_BYTES,
  type ReviewComment,
  ReviewCommentRequest,
} from '../../src/core/protocol/index.ts';
import { carryOver } from '../../src/engine/carry-over.ts';
import { cutQuote, quoteLines, rangesText } from '../../src/engine/review/quote.ts';
import { pendingNext, type SentReview } from '../../src/engine/review/review-journal.ts';
import { reviewText, tooBigMessage } from '../../src/engine/review/review-text.ts';
import { selectComments } from '../../src/engine/review/select.ts';

/** a.ts: lines 1-2 unchanged, 3 replaced by 3-4, 5 unchanged; a second hunk at 20 adds 21. */
const FILE: DiffFile = {
  path: 'src/a.ts',
  status: 'modified',
  binary: false,
  additions: 3,
  deletions: 1,
  hunks: [
    {
      oldStart: 1,
      oldLines: 4,
      newStart: 1,
      newLines: 5,
      lines: [
        { kind: 'context', text: 'one' },
        { kind: 'context', text: 'two' },
        { kind: 'del', text: 'three' },
        { kind: 'add', text: 'THREE' },
        { kind: 'add', text: 'three and a half' },
        { kind: 'context', text: 'four' },
      ],
    },
    {
      oldStart: 19,
      oldLines: 2,
      newStart: 20,
      newLines: 3,
      lines: [
        { kind: 'context', text: 'nineteen' },
        { kind: 'add', text: 'new twenty' },
        { kind: 'context', text: 'twenty' },
      ],
    },
  ],
};

describe('the quote of a comment', () => {
  it('quotes the new side’s lines with the old lines between them and one diff line around (here the line it replaced)', () => {
    expect(quoteLines(FILE, 'new', { start: 3, end: 4 })).toEqual({
      ok: true,
      hunk: '-three\n+THREE\n+three and a half\n four',
      truncated: false,
    });
    expect(quoteLines(FILE, 'new', { start: 21, end: 21 })).toEqual({
      ok: true,
      hunk: ' nineteen\n+new twenty\n twenty',
      truncated: false,
    });
  });

  it('quotes the old side by its own numbers; context lines count on both sides; a hunk’s edge has no line past it', () => {
    expect(quoteLines(FILE, 'old', { start: 3, end: 3 })).toMatchObject({
      hunk: ' two\n-three\n+THREE',
    });
    expect(quoteLines(FILE, 'old', { start: 1, end: 1 })).toMatchObject({ hunk: ' one\n two' });
    expect(quoteLines(FILE, 'new', { start: 22, end: 22 })).toMatchObject({ hunk: '+new twenty\n twenty' });
  });

  it('refuses lines the diff does not show on that side, or that span two hunks, saying what it has', () => {
    const outside = quoteLines(FILE, 'new', { start: 9, end: 10 });
    expect(outside).toEqual({
      ok: false,
      message:
        'lines 9-10 (new side) are not in one hunk of the diff: src/a.ts has changed lines 3-4 and 21 (new side); the diff shows lines 1-5 and 20-22 there',
    });
    expect(quoteLines(FILE, 'new', { start: 5, end: 20 }).ok).toBe(false);
    const one = quoteLines(FILE, 'new', { start: 9, end: 9 });
    expect(one.ok ? '' : one.message).toMatch(/^line 9 \(new side\) is not in one hunk/);
    const old = quoteLines(FILE, 'old', { start: 22, end: 22 });
    expect(old.ok ? '' : old.message).toContain('src/a.ts has changed lines 3 (old side)');
    const binary = quoteLines({ ...FILE, binary: true, hunks: [] }, 'new', { start: 1, end: 1 });
    expect(binary.ok ? '' : binary.message).toBe('src/a.ts is binary: its diff has no lines to comment on');
  });

  it('cuts a long quote between lines at REVIEW_HUNK_MAX_BYTES, and marks it', () => {
    const long = Array.from({ length: 2_000 }, (_, i) => `+line ${i} ${'x'.repeat(20)}`).join('\n');
    const cut = cutQuote(long, REVIEW_HUNK_MAX_BYTES);
    expect(cut.truncated).toBe(true);
    expect(Buffer.byteLength(cut.hunk)).toBeLessThanOrEqual(REVIEW_HUNK_MAX_BYTES);
    expect(long.startsWith(cut.hunk)).toBe(true);
    expect(cut.hunk.endsWith('x')).toBe(true);
    expect(cutQuote('é'.repeat(10), 5)).toEqual({ ok: true, hunk: 'éé', truncated: true });
  });

  it('says line numbers as ranges', () => {
    expect(rangesText([9, 1, 2, 7, 10, 11, 12])).toBe('1-2, 7 and 9-12');
    expect(rangesText([4])).toBe('4');
    expect(rangesText([])).toBe('none');
  });
});

const comment = (over: Partial<ReviewComment> = {}): ReviewComment => ({
  commentId: 'c1',
  codonId: 'two',
  from: 'a'.repeat(40),
  to: 'b'.repeat(40),
  file: 'src/a.ts',
  side: 'new',
  lines: { start: 3, end: 4 },
  hunk: ' two\n+THREE',
  text: 'Why upper case?',
  author: { kind: 'client', clientId: 'me' },
  ...over,
});

describe('the review text the agent reads', () => {
  it('the note, then each comment: file, lines, side, the quote in a fenced diff block, the comment', () => {
    const text = reviewText({
      codonId: 'two',
      note: 'Mostly fine.',
      comments: [
        comment(),
        comment({
          file: 'b.md',
          side: 'old',
          lines: { start: 7, end: 7 },
          hunk: '-has ``` in it',
          text: 'Keep it.',
        }),
      ],
    });
    expect(text).toBe(
      [
        'Review of the changes of codon two (2 comments). Address each comment.',
        '',
        'Mostly fine.',
        '',
        '1. src/a.ts, lines 3-4 (new side: the file after the change):',
        '```diff',
        ' two',
        '+THREE',
        '```',
        'Comment: Why upper case?',
        '',
        '2. b.md, line 7 (old side: the file before the change):',
        '````diff',
        '-has ``` in it',
        '````',
        'Comment: Keep it.',
      ].join('\n'),
    );
  });

  it('shortens the quotes evenly to fit a message, and gives up when the comments alone do not fit', () => {
    const big = 'x'.repeat(10_000);
    const many = Array.from({ length: 5 }, (_, i) => comment({ commentId: `c${i}`, hunk: big }));
    const text = reviewText({ codonId: 'two', comments: many });
    expect(text).toBeDefined();
    expect(Buffer.byteLength(text ?? '')).toBeLessThanOrEqual(MESSAGE_MAX_BYTES);
    expect(text).toContain('quote cut');
    const wordy = Array.from({ length: 5 }, (_, i) => comment({ commentId: `c${i}`, text: big }));
    expect(reviewText({ codonId: 'two', comments: wordy })).toBeUndefined();
    expect(tooBigMessage(5)).toContain('send fewer at a time');
    expect(tooBigMessage(1)).toMatch(/^the review of 1 comment does not fit/);
    expect(tooBigMessage(1)).not.toContain('fewer');
  });

  it('always fits one comment of the most the server takes, with the longest note and a long file name', () => {
    const text = '\u00e9'.repeat(REVIEW_TEXT_MAX_BYTES / 2);
    expect(
      ReviewCommentRequest.safeParse({ codonId: 'two', file: 'a', lines: { start: 1, end: 1 }, text })
        .success,
    ).toBe(true);
    expect(
      ReviewCommentRequest.safeParse({
        codonId: 'two',
        file: 'a',
        lines: { start: 1, end: 1 },
        text: `${text}x`,
      }).success,
    ).toBe(false);
    const file = `${'\u4e2d'.repeat(4095)}`;
    const one = comment({ file, text, hunk: '+x'.repeat(REVIEW_HUNK_MAX_BYTES / 2) });
    const review = reviewText({ codonId: 'two', note: 'n'.repeat(REVIEW_NOTE_MAX_BYTES), comments: [one] });
    expect(review).toBeDefined();
    expect(Buffer.byteLength(review ?? '')).toBeLessThanOrEqual(MESSAGE_MAX_BYTES);
    expect(review).toContain(text);
    expect(review).toContain('quote cut');
  });

  it('gives the agent comments and notes without terminal control bytes (newlines and tabs kept)', () => {
    const typed = 'red\u001b[31m alert\u0007 and\u001b]0;title\u0007 done\ttab\nnext\u0000';
    const review = reviewText({
      codonId: 'two',
      note: 'note\u001b[2J here',
      comments: [comment({ text: typed })],
    });
    expect(review).toContain('Comment: red alert and done\ttab\nnext');
    expect(review).toContain('note here');
    const controls = [...(review ?? '')].filter((c) => c < ' ' && c !== '\n' && c !== '\t');
    expect(controls).toEqual([]);
  });
});

describe('which comments a review sends', () => {
  const all = [comment({ commentId: 'c1' }), comment({ commentId: 'c2' }), comment({ commentId: 'c3' })];
  it('those named, in the order they were made; else those not sent yet', () => {
    expect(selectComments('two', all, { sentIds: new Set(), named: ['c3', 'c1'] })).toMatchObject({
      ok: true,
      value: [{ commentId: 'c1' }, { commentId: 'c3' }],
    });
    expect(selectComments('two', all, { sentIds: new Set(['c1']) })).toMatchObject({
      ok: true,
      value: [{ commentId: 'c2' }, { commentId: 'c3' }],
    });
  });
  it('without ids, only those made since the codon last started; earlier ones go when named', () => {
    const earlierIds = new Set(['c1', 'c2']);
    expect(selectComments('two', all, { sentIds: new Set(), earlierIds })).toMatchObject({
      ok: true,
      value: [{ commentId: 'c3' }],
    });
    expect(selectComments('two', all, { sentIds: new Set(), earlierIds, named: ['c1'] })).toMatchObject({
      ok: true,
      value: [{ commentId: 'c1' }],
    });
    expect(selectComments('two', all, { sentIds: new Set(['c3']), earlierIds })).toMatchObject({
      ok: false,
      error: {
        code: 'INVALID_COMMAND',
        message: expect.stringContaining('the 2 not sent are on an earlier run: name them'),
      },
    });
  });
  it('refuses an id that is no comment of the codon, and a review with nothing to send', () => {
    expect(selectComments('two', all, { sentIds: new Set(), named: ['c9'] })).toMatchObject({
      ok: false,
      error: { code: 'UNKNOWN_COMMENT', message: 'no comment "c9" on codon two; its comments: c1, c2, c3' },
    });
    expect(selectComments('two', all, { sentIds: new Set(['c1', 'c2', 'c3']) })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_COMMAND' },
    });
    expect(selectComments('two', [], { sentIds: new Set() })).toMatchObject({
      ok: false,
      error: { message: 'codon two has no comments to send; comment on its diff first (review.comment)' },
    });
  });
});

describe('reviews waiting for the next codon', () => {
  const review = (seq: number, to: SentReview['to'] = 'next', text = `review ${seq}`): SentReview => ({
    seq,
    reviewId: `r${seq}`,
    codonId: 'two',
    to,
    commentIds: ['c1'],
    text,
    by: { kind: 'client', clientId: 'me' },
  });
  it('those to next sent after the last codon start and carried by no prompt since', () => {
    const sent = [review(3), review(8), review(9, 'redo'), review(12)];
    const prompts = [{ seq: 13, type: 'codon.message', data: { text: 'review 12', delivery: 'prompt' } }];
    expect(pendingNext(sent, 5, prompts).map((r) => r.reviewId)).toEqual(['r8']);
  });
});

describe('carry-over of a review’s redo a crash interrupted', () => {
  const by = { kind: 'client' as const, clientId: 'me' };
  it('the codon’s next run carries the review text, once', () => {
    const events = [
      { type: 'codon.started', data: { codonId: 'two' } },
      { type: 'codon.completed', data: { codonId: 'two' } },
      { type: 'review.sent', data: { codonId: 'two', to: 'redo', text: 'the review', by } },
    ];
    expect(carryOver(events).get('two')).toEqual([{ text: 'the review', from: by }]);
    const taken = [
      ...events,
      { type: 'codon.message', data: { codonId: 'two', text: 'the review', from: by, delivery: 'prompt' } },
      { type: 'codon.started', data: { codonId: 'two' } },
      { type: 'codon.completed', data: { codonId: 'two' } },
    ];
    expect(carryOver(taken).get('two')).toBeUndefined();
    const next = [
      ...events.slice(0, 2),
      { type: 'review.sent', data: { codonId: 'two', to: 'next', text: 'x', by } },
    ];
    expect(carryOver(next).get('two')).toBeUndefined();
  });
});
