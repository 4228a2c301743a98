import { describe, expect, it } from 'vitest';
import {
  type CommentView,
  commentState,
  commentsOn,
  commentsUnder,
  isLong,
  isPicked,
  isUnsent,
  type LinePick,
  linesWord,
  markEarlier,
  pickLine,
  reviewChoices,
} from '../../../../src/clients/web/model/review.ts';

const at = (line: number, side: 'new' | 'old' = 'new', file = 'a.ts', hunk = 0) => ({
  file,
  side,
  hunk,
  line,
});

describe('picking lines for a comment', () => {
  it('a click picks a line; a click on another line of the same side picks the range (a phone taps twice)', () => {
    const one = pickLine(undefined, at(7), false);
    expect(one).toEqual({ file: 'a.ts', side: 'new', hunk: 0, start: 7, end: 7, anchor: 7 });
    expect(pickLine(one, at(3), false)).toEqual({
      file: 'a.ts',
      side: 'new',
      hunk: 0,
      start: 3,
      end: 7,
      anchor: 7,
    });
  });

  it('shift extends a range; the same line again lets go; after a range a click starts anew', () => {
    const range = pickLine(pickLine(undefined, at(4), false), at(6), false) as LinePick;
    expect(pickLine(range, at(9), true)).toMatchObject({ start: 4, end: 9 });
    expect(pickLine(range, at(9), false)).toMatchObject({ start: 9, end: 9, anchor: 9 });
    expect(pickLine(pickLine(undefined, at(4), false), at(4), false)).toBeUndefined();
  });

  it('another file or side starts anew: a range stays on one side of one file', () => {
    const one = pickLine(undefined, at(4), false);
    expect(pickLine(one, at(5, 'old'), false)).toMatchObject({ side: 'old', start: 5, end: 5 });
    expect(pickLine(one, at(5, 'new', 'b.ts'), true)).toMatchObject({ file: 'b.ts', start: 5, end: 5 });
    const range = pickLine(one, at(6), false);
    expect(isPicked(range, 'a.ts', 'new', 5)).toBe(true);
    expect(isPicked(range, 'a.ts', 'old', 5)).toBe(false);
    expect(isPicked(range, 'a.ts', 'new', 7)).toBe(false);
    expect(isPicked(range, 'a.ts', 'new', undefined)).toBe(false);
  });

  it('a second click in another hunk or on the other side starts a pick there and says why (trial 35b: a.txt 5 then 14)', () => {
    const five = pickLine(undefined, at(5, 'new', 'a.txt', 0), false);
    const fourteen = pickLine(five, at(14, 'new', 'a.txt', 1), false);
    expect(fourteen).toMatchObject({ hunk: 1, start: 14, end: 14, anchor: 14 });
    expect(fourteen?.hint).toMatch(/one hunk/);
    // Shift-click across hunks does the same.
    expect(pickLine(five, at(14, 'new', 'a.txt', 1), true)).toMatchObject({ start: 14, end: 14 });
    expect(pickLine(five, at(3, 'old', 'a.txt', 0), false)?.hint).toMatch(/one side/);
    // Within the new hunk, the range is made and the hint goes.
    const range = pickLine(fourteen, at(16, 'new', 'a.txt', 1), false);
    expect(range).toEqual({ file: 'a.txt', side: 'new', hunk: 1, start: 14, end: 16, anchor: 14 });
  });
});

const comment = (over: Partial<CommentView> = {}): CommentView => ({
  commentId: 'c1',
  codonId: 'two',
  from: 'aaaaaaaa11111111',
  to: 'bbbbbbbb22222222',
  file: 'a.ts',
  side: 'new',
  lines: { start: 3, end: 5 },
  hunk: ' x\n+y',
  text: 'no',
  author: { kind: 'client', clientId: 'client-1' },
  sent: [],
  ...over,
});

describe('comments on a diff', () => {
  it('stand under their last line, on the diff they were made on (short or full SHAs)', () => {
    const c = comment();
    const where = { from: 'aaaaaaaa', to: 'bbbbbbbb22222222', file: 'a.ts', side: 'new' as const };
    expect(commentsUnder([c], { ...where, no: 5 })).toEqual([c]);
    expect(commentsUnder([c], { ...where, no: 4 })).toEqual([]);
    expect(commentsUnder([c], { ...where, side: 'old', no: 5 })).toEqual([]);
    expect(commentsUnder([c], { ...where, to: 'cccccccc', no: 5 })).toEqual([]);
  });

  it('those on an earlier run of the codon read so and are not what Send review sends (trial 35 A7)', () => {
    const [old, fresh] = markEarlier(
      [comment({ commentId: 'old' }), comment({ commentId: 'fresh' })],
      (c) => c.commentId === 'old',
    );
    expect(commentState(old as CommentView)).toBe('not sent · on an earlier run');
    expect(isUnsent(old as CommentView)).toBe(false);
    expect(commentState(fresh as CommentView)).toBe('unsent');
    expect(isUnsent(fresh as CommentView)).toBe(true);
  });

  it('read their place and state: unsent, or where the last review sent them', () => {
    expect(linesWord(comment())).toBe('a.ts:3-5');
    expect(linesWord(comment({ side: 'old', lines: { start: 2, end: 2 } }))).toBe('a.ts:2 (old)');
    expect(commentState(comment())).toBe('unsent');
    expect(commentState(comment({ sent: [{ reviewId: 'r', to: 'redo', targetCodonId: 'two' }] }))).toBe(
      'sent · redo',
    );
    expect(commentState(comment({ sent: [{ reviewId: 'r', to: 'message', targetCodonId: 'three' }] }))).toBe(
      'sent · message to the running agent (three)',
    );
    expect(
      commentState(
        comment({
          sent: [
            { reviewId: 'r1', to: 'redo' },
            { reviewId: 'r2', to: 'next', targetCodonId: 'three' },
          ],
        }),
      ),
    ).toBe('sent · next codon (three)');
  });

  it('a message needs a running codon; redo and next are always offered', () => {
    expect(reviewChoices(undefined)).toEqual([
      { to: 'redo' },
      { to: 'message', unavailable: 'no codon is running' },
      { to: 'next' },
    ]);
    expect(reviewChoices('three').every((c) => c.unavailable === undefined)).toBe(true);
  });
});

describe('commented lines and long comments', () => {
  const where = { from: 'aaaaaaaa', to: 'bbbbbbbb', file: 'a.ts', side: 'new' as const };
  it('marks every line a comment covers, on its diff, file and side only', () => {
    const c = comment();
    expect([2, 3, 4, 5, 6].map((no) => commentsOn([c], { ...where, no }).length)).toEqual([0, 1, 1, 1, 0]);
    expect(commentsOn([c], { ...where, side: 'old', no: 4 })).toEqual([]);
    expect(commentsOn([c], { ...where, file: 'b.ts', no: 4 })).toEqual([]);
    expect(commentsOn([c], { ...where, to: 'cccccccc', no: 4 })).toEqual([]);
    expect(commentsOn([c], { ...where, no: undefined })).toEqual([]);
  });

  it('a comment of more than four lines, or a long paragraph, is long', () => {
    expect(isLong('short')).toBe(false);
    expect(isLong('1\n2\n3\n4')).toBe(false);
    expect(isLong('1\n2\n3\n4\n5')).toBe(true);
    expect(isLong('x'.repeat(400))).toBe(true);
  });
});
