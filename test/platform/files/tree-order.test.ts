import { describe, expect, it } from 'vitest';
import { compareEntries, takeInOrder } from '../../../src/platform/files/tree-order.ts';

const file = (name: string) => ({ name, isDirectory: false });
const dir = (name: string) => ({ name, isDirectory: true });

describe('compareEntries', () => {
  it('puts directories first, then orders by code unit whatever the locale', () => {
    const sorted = [
      file('b'),
      file('B'),
      dir('z'),
      file('a'),
      dir('A'),
      file('_'),
      file('é'),
      file('10'),
      file('9'),
    ].sort(compareEntries);
    expect(sorted.map((e) => e.name)).toEqual(['A', 'z', '10', '9', 'B', '_', 'a', 'b', 'é']);
  });
});

describe('takeInOrder', () => {
  it('keeps everything within the budget, sorted, without touching the input', () => {
    const input = [file('b'), dir('a')];
    expect(takeInOrder(input, 5)).toEqual({ kept: [dir('a'), file('b')], truncated: false });
    expect(input).toEqual([file('b'), dir('a')]);
    expect(takeInOrder(input, 2).truncated).toBe(false);
  });

  it('keeps the first entries in order and reports the cut', () => {
    expect(takeInOrder([file('c'), file('a'), dir('d'), file('b')], 2)).toEqual({
      kept: [dir('d'), file('a')],
      truncated: true,
    });
    expect(takeInOrder([file('a')], 0)).toEqual({ kept: [], truncated: true });
    expect(takeInOrder([], 0)).toEqual({ kept: [], truncated: false });
  });
});
