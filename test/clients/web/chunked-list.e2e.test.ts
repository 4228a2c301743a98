import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHUNK, ChunkedList } from '../../../src/clients/web/model/chunked-list.ts';

type Op = { kind: 'push'; n: number } | { kind: 'set'; at: number } | { kind: 'keep'; max: number };

describe('chunked list (the dashboard activity rows)', () => {
  it('reads like the array it stands for through appends, changes and letting the oldest go; earlier versions never change', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('push' as const), n: fc.integer({ min: 0, max: 3 * CHUNK }) }),
      fc.record({ kind: fc.constant('set' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('keep' as const), max: fc.integer({ min: 0, max: 4 * CHUNK }) }),
    );
    fc.assert(
      fc.property(fc.array(fc.array(op, { maxLength: 4 }), { maxLength: 8 }), (batches: Op[][]) => {
        let list = ChunkedList.empty<string>();
        let model: string[] = [];
        const versions: Array<[ChunkedList<string>, string[]]> = [];
        let next = 0;
        for (const batch of batches) {
          const draft = list.edit();
          for (const o of batch) {
            if (o.kind === 'push')
              for (let i = 0; i < o.n; i++) {
                const row = `r${next++}`;
                draft.push(row);
                model.push(row);
              }
            else if (o.kind === 'set' && model.length > 0) {
              const at = o.at % model.length;
              draft.set(at, `s${next}`);
              model[at] = `s${next++}`;
            } else if (o.kind === 'keep') {
              const over = Math.max(0, model.length - o.max);
              expect(draft.keepLast(o.max)).toBe(over);
              model = model.slice(over);
            }
            expect(draft.length).toBe(model.length);
            expect(draft.at(-1)).toBe(model.at(-1));
          }
          list = draft.done();
          versions.push([list, model.slice()]);
        }
        for (const [version, rows] of versions) {
          expect(version.length).toBe(rows.length);
          expect(version.toArray()).toEqual(rows);
          expect(version.at(0)).toBe(rows[0]);
          expect(version.at(-1)).toBe(rows.at(-1));
          expect(version.at(rows.length)).toBeUndefined();
        }
      }),
      { numRuns: 200 },
    );
  });

  it('gives back the same list when a batch changed nothing', () => {
    const list = ChunkedList.empty<number>().edit();
    list.push(1);
    const one = list.done();
    expect(one.edit().done()).toBe(one);
    const draft = one.edit();
    draft.keepLast(5);
    expect(draft.done()).toBe(one);
  });
});
