import { describe, expect, it } from 'vitest';
import { clockAt, resetWhen, waitWords } from '../../../src/core/time/reset-text.ts';

const NOW = new Date(2026, 10, 30, 12, 47, 0).getTime();

describe('a reset in words', () => {
  it('says the time left in the largest units that matter', () => {
    expect(waitWords(2 * 3_600_000 + 13 * 60_000)).toBe('2 h 13 m');
    expect(waitWords(3 * 3_600_000)).toBe('3 h');
    expect(waitWords(90_000)).toBe('1 m 30 s');
    expect(waitWords(45 * 60_000 + 5_000)).toBe('45 m');
    expect(waitWords(2_500)).toBe('3 s');
    expect(waitWords(-10)).toBe('0 s');
    expect(waitWords(26 * 3_600_000)).toBe('1 d 2 h');
  });

  it('names the day when the reset is not today, the date beyond a week', () => {
    expect(clockAt(new Date(2026, 10, 30, 15, 0).getTime(), NOW)).toBe('15:00');
    expect(clockAt(new Date(2026, 11, 1, 9, 0).getTime(), NOW)).toBe('Tue 09:00');
    expect(clockAt(new Date(2026, 11, 12, 9, 0).getTime(), NOW)).toBe('2026-12-12 09:00');
    expect(clockAt(NOW + 3_000, NOW)).toBe('12:47:03');
  });

  it('says when a reset is past due', () => {
    expect(resetWhen(NOW - 1_000, NOW)).toBe('12:46:59 (any moment now)');
    expect(resetWhen(NOW + 3_600_000, NOW)).toBe('13:47 (in 1 h)');
  });
});
