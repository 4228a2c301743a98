import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../../src/host/server/rate-limit.ts';

/** How many of `count` takes at time `at` succeed. */
const taken = (bucket: TokenBucket, count: number, at: number) =>
  Array.from({ length: count }, () => bucket.take(at)).filter(Boolean).length;

describe('TokenBucket (a client message allowance)', () => {
  it('gives a burst at once, then refills at its rate, never past the burst', () => {
    const bucket = new TokenBucket({ perSecond: 5, burst: 20 }, 0);
    expect(taken(bucket, 25, 0)).toBe(20);
    expect(bucket.waitMs(0)).toBe(200);
    expect(taken(bucket, 5, 100)).toBe(0);
    expect(taken(bucket, 5, 200)).toBe(1);
    expect(taken(bucket, 10, 1_200)).toBe(5);
    // A long pause refills the burst, no more.
    expect(taken(bucket, 30, 60_000)).toBe(20);
  });

  it.each([
    { perSecond: 1, burst: 1, after: 999, expected: 0 },
    { perSecond: 1, burst: 1, after: 1000, expected: 1 },
    { perSecond: 0.5, burst: 3, after: 4000, expected: 2 },
  ])(
    'rate $perSecond/s, burst $burst, emptied, then $after ms: $expected',
    ({ perSecond, burst, after, expected }) => {
      const bucket = new TokenBucket({ perSecond, burst }, 1_000);
      taken(bucket, burst, 1_000);
      expect(taken(bucket, 10, 1_000 + after)).toBe(expected);
    },
  );

  it('a clock that goes back refills nothing', () => {
    const bucket = new TokenBucket({ perSecond: 10, burst: 2 }, 10_000);
    expect(taken(bucket, 2, 10_000)).toBe(2);
    expect(taken(bucket, 2, 5_000)).toBe(0);
    expect(taken(bucket, 2, 10_000)).toBe(0);
    expect(taken(bucket, 2, 10_100)).toBe(1);
  });
});
