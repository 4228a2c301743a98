import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_TURNS,
  estimateTokens,
  type HistoryLimits,
  type Turn,
  toMessages,
  trimHistory,
} from '../../../src/engine/sentinels/history.ts';

// Each turn is 8 + 8 characters: 2 + 2 = 4 estimated tokens.
const turns: Turn[] = Array.from({ length: 5 }, (_, i) => ({
  user: `user ${i}  `,
  assistant: `answer ${i}`,
}));

describe('history trimming', () => {
  const table: Array<[string, HistoryLimits, number[]]> = [
    ['by turns', { maxTurns: 2 }, [3, 4]],
    ['by tokens', { maxTokens: 9 }, [3, 4]],
    ['by tokens, exactly', { maxTokens: 12 }, [2, 3, 4]],
    ['both: the tighter wins (turns)', { maxTurns: 1, maxTokens: 100 }, [4]],
    ['both: the tighter wins (tokens)', { maxTurns: 5, maxTokens: 4 }, [4]],
    ['a budget smaller than one turn keeps none', { maxTokens: 3 }, []],
    ['limits above the size keep all', { maxTurns: 50 }, [0, 1, 2, 3, 4]],
    ['no limits keep the default number', {}, [0, 1, 2, 3, 4]],
  ];
  it.each(table)('%s', (_name, limits, kept) => {
    expect(trimHistory(turns, limits).map((t) => Number(t.user.split(' ')[1]))).toEqual(kept);
  });

  it('keeps at most DEFAULT_MAX_TURNS without limits', () => {
    const many = Array.from({ length: DEFAULT_MAX_TURNS + 5 }, (_, i) => ({ user: `${i}`, assistant: '' }));
    expect(trimHistory(many, {})).toHaveLength(DEFAULT_MAX_TURNS);
  });

  it('estimates about four characters a token', () => {
    expect([estimateTokens(''), estimateTokens('abcd'), estimateTokens('abcde')]).toEqual([0, 1, 2]);
  });

  it('builds alternating messages ending with the new prompt', () => {
    expect(toMessages([{ user: 'q1', assistant: 'a1' }], 'q2')).toEqual([
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' },
    ]);
  });
});
