import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiveList } from '../../../src/llm/proxy/live-list.ts';

type Item = { slot: number; name: number };

describe('LiveList', () => {
  it('holds exactly the items added and not yet removed, whatever the order', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat(20)), { maxLength: 200 }), (steps) => {
        const list = new LiveList<Item>();
        const items = Array.from({ length: 21 }, (_, name) => ({ slot: -1, name }));
        const model = new Set<Item>();
        for (const [add, n] of steps) {
          const item = items[n]!;
          if (add) {
            list.add(item);
            model.add(item);
          } else {
            list.remove(item);
            model.delete(item);
          }
        }
        expect(list.size).toBe(model.size);
        expect(new Set(list.snapshot())).toEqual(model);
      }),
    );
  });

  it('lets items be removed while going through a snapshot', () => {
    const list = new LiveList<Item>();
    const items = [1, 2, 3].map((name) => ({ slot: -1, name }));
    for (const item of items) list.add(item);
    const seen: number[] = [];
    for (const item of list.snapshot()) {
      seen.push(item.name);
      list.remove(item);
    }
    expect(seen.sort()).toEqual([1, 2, 3]);
    expect(list.size).toBe(0);
    expect(items.every((item) => item.slot === -1)).toBe(true);
  });
});
