import { describe, expect, it } from 'vitest';
import { agoWords, clockWords, durationWords } from '../../../../src/clients/web/model/time-words.ts';

const local = (d: number, h: number, m: number, s: number) => new Date(2026, 10, d, h, m, s);

describe('times and durations as the dashboard words them', () => {
  it('durations: milliseconds, tenths under ten seconds, then minutes and seconds', () => {
    expect(durationWords(340)).toBe('340 ms');
    expect(durationWords(4_240)).toBe('4.2 s');
    expect(durationWords(134_900)).toBe('2 m 14 s');
    expect(durationWords(12 * 60_000 + 5_000)).toBe('12 m');
    expect(durationWords(3_900_000)).toBe('1 h 5 m');
    expect(durationWords(-1)).toBe('—');
  });

  it('a clock time today, the day within a week, the date before', () => {
    const now = local(30, 12, 0, 0).getTime();
    expect(clockWords(local(30, 9, 3, 41).toISOString(), now)).toBe('09:03:41');
    expect(clockWords(local(27, 9, 3, 41).toISOString(), now)).toBe('Fri 09:03:41');
    expect(clockWords(local(2, 9, 3, 41).toISOString(), now)).toBe('2026-11-02 09:03:41');
    expect(clockWords('not a date', now)).toBe('not a date');
  });

  it('how long ago, in its largest units', () => {
    const now = local(30, 12, 0, 0).getTime();
    expect(agoWords(local(30, 11, 59, 58).toISOString(), now)).toBe('just now');
    expect(agoWords(local(30, 11, 59, 15).toISOString(), now)).toBe('45 s ago');
    expect(agoWords(local(30, 11, 57, 46).toISOString(), now)).toBe('2 m ago');
    expect(agoWords(local(30, 9, 0, 0).toISOString(), now)).toBe('3 h ago');
  });
});
