import { describe, expect, it } from 'vitest';
import { TriggerQueue } from '../../../src/engine/sentinels/trigger-queue.ts';

describe('trigger queue', () => {
  it('cuts what has accumulated into batches, taken oldest first', () => {
    const q = new TriggerQueue<number>(10);
    q.push(1);
    q.push(2);
    expect(q.cut()).toBe(2);
    q.push(3);
    expect(q.uncut).toBe(1);
    expect(q.cut()).toBe(1);
    expect(q.cut()).toBe(0);
    expect(q.take()).toEqual([1, 2]);
    expect(q.take()).toEqual([3]);
    expect(q.take()).toBeUndefined();
    expect(q.size).toBe(0);
  });

  it('drops the oldest beyond maxQueue and counts it', () => {
    const q = new TriggerQueue<number>(3);
    const dropped = [1, 2, 3, 4, 5].map((n) => q.push(n));
    expect(dropped).toEqual([false, false, false, true, true]);
    expect(q.size).toBe(3);
    expect(q.cut()).toBe(3);
    expect(q.take()).toEqual([3, 4, 5]);
    expect(q.takeDropped()).toBe(2);
    expect(q.takeDropped()).toBe(0);
  });

  it('drops from the oldest batch first, removing a batch it empties', () => {
    const q = new TriggerQueue<string>(3);
    q.push('a');
    q.cut();
    q.push('b');
    q.push('c');
    q.cut();
    q.push('d'); // drops a: the first batch is gone
    expect(q.batches).toBe(1);
    q.push('e'); // drops b from the second batch
    expect(q.take()).toEqual(['c']);
    expect(q.uncut).toBe(2);
    expect(q.cut()).toBe(2);
    expect(q.take()).toEqual(['d', 'e']);
    expect(q.dropped).toBe(2);
  });

  it('stays bounded and in order over many pushes', () => {
    const q = new TriggerQueue<number>(100);
    let largest = 0;
    for (let n = 0; n < 100_000; n++) {
      q.push(n);
      if (n % 7 === 0) q.cut();
      if (n % 13 === 0) q.take();
      largest = Math.max(largest, q.size);
    }
    expect(largest).toBe(100);
    q.cut();
    const rest: number[] = [];
    for (let b = q.take(); b; b = q.take()) rest.push(...b);
    expect(rest).toEqual([...rest].sort((a, b) => a - b));
    expect(rest.at(-1)).toBe(99_999);
  });

  it('clear empties it and counts what it held as dropped', () => {
    const q = new TriggerQueue<number>(5);
    q.push(1);
    q.cut();
    q.push(2);
    q.clear();
    expect([q.size, q.batches, q.uncut, q.dropped]).toEqual([0, 0, 0, 2]);
  });

  it('refuses a maxQueue below 1', () => {
    expect(() => new TriggerQueue(0)).toThrow(TypeError);
  });
});
