import { describe, expect, it } from 'vitest';
import { createSequenceMatcher } from '../../../src/engine/sentinels/sequence-match.ts';

type E = { type: string; data: { n: number } };
const is = (type: string) => (e: E) => e.type === type;

/** Feeds events named by letters ("AxB"); returns the event positions of each match. */
function run(types: string, steps: string[], withinEvents?: number): number[][] {
  const matcher = createSequenceMatcher<E>(steps.map(is), withinEvents);
  const matches: number[][] = [];
  [...types].forEach((type, n) => {
    const found = matcher.offer({ type, data: { n } });
    if (found) matches.push(found.map((e) => e.data.n));
  });
  return matches;
}

describe('sequence matching', () => {
  const table: Array<[string, string, string[], number | undefined, number[][]]> = [
    ['steps in a row', 'AB', ['A', 'B'], undefined, [[0, 1]]],
    ['other events between steps', 'AxxB', ['A', 'B'], undefined, [[0, 3]]],
    ['wrong order does not match', 'BA', ['A', 'B'], undefined, []],
    ['three steps', 'AxBxC', ['A', 'B', 'C'], undefined, [[0, 2, 4]]],
    ['one step is an event trigger', 'xAxA', ['A'], undefined, [[1], [3]]],
    ['matches do not share events', 'ABB', ['A', 'B'], undefined, [[0, 1]]],
    [
      'repeats after a match',
      'ABAB',
      ['A', 'B'],
      undefined,
      [
        [0, 1],
        [2, 3],
      ],
    ],
    ['the latest start is kept', 'AAB', ['A', 'B'], undefined, [[1, 2]]],
    ['within the window (inclusive)', 'AxB', ['A', 'B'], 3, [[0, 2]]],
    ['outside the window', 'AxxB', ['A', 'B'], 3, []],
    ['a later start still fits', 'AxxAB', ['A', 'B'], 3, [[3, 4]]],
    ['expired partial at a later step', 'ABxxxC', ['A', 'B', 'C'], 4, []],
    ['same step repeated', 'AxA', ['A', 'A'], undefined, [[0, 2]]],
    ['repeated step needs two events', 'A', ['A', 'A'], undefined, []],
    ['one event moves one step only', 'AAA', ['A', 'A', 'A'], undefined, [[0, 1, 2]]],
    ['window of one cannot hold two steps', 'AB', ['A', 'B'], 1, []],
  ];
  it.each(table)('%s', (_name, types, steps, within, expected) => {
    expect(run(types, steps, within)).toEqual(expected);
  });

  it('keeps bounded state over a long stream', () => {
    const matcher = createSequenceMatcher<E>([is('A'), is('B')], 10);
    for (let n = 0; n < 100_000; n++) matcher.offer({ type: 'A', data: { n } });
    expect(matcher.offer({ type: 'B', data: { n: -1 } })?.map((e) => e.data.n)).toEqual([99_999, -1]);
  });

  it('reset forgets partial matches', () => {
    const matcher = createSequenceMatcher<E>([is('A'), is('B')]);
    matcher.offer({ type: 'A', data: { n: 0 } });
    matcher.reset();
    expect(matcher.offer({ type: 'B', data: { n: 1 } })).toBeUndefined();
  });
});
