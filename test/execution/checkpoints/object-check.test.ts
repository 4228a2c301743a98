import { describe, expect, it } from 'vitest';
import {
  blobsToWrite,
  checkBatch,
  describeCorrupt,
  groupBySize,
  objectName,
  parseBatchCheck,
  treesBelow,
} from '../../../src/execution/checkpoints/object-check.ts';

const batchOf = (objects: Array<{ oid: string; type: string; content: string }>) =>
  Buffer.concat(
    objects.flatMap(({ oid, type, content }) => [
      Buffer.from(`${oid} ${type} ${Buffer.byteLength(content)}\n`),
      Buffer.from(content),
      Buffer.from('\n'),
    ]),
  );

describe('object check', () => {
  it("names objects as git does (git hash-object of 'hello\\n')", () => {
    expect(objectName('blob', Buffer.from('hello\n'))).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
    expect(objectName('blob', Buffer.alloc(0))).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
  });

  it('passes objects whose bytes hash to their names and names those that do not', () => {
    const good = objectName('blob', Buffer.from('one\n'));
    const poisoned = objectName('blob', Buffer.from('two\n'));
    const gone = objectName('blob', Buffer.from('three\n'));
    const output = Buffer.concat([
      batchOf([
        { oid: good, type: 'blob', content: 'one\n' },
        { oid: poisoned, type: 'blob', content: 'EVIL\n' },
      ]),
      Buffer.from(`${gone} missing\n`),
    ]);
    expect(checkBatch(output, [good, poisoned, gone])).toEqual([
      { oid: poisoned, why: 'hash-mismatch' },
      { oid: gone, why: 'missing' },
    ]);
  });

  it('reports objects cut short by the output as unreadable', () => {
    const oid = objectName('blob', Buffer.from('whole\n'));
    const cut = Buffer.from(`${oid} blob 6\nwho`);
    expect(checkBatch(cut, [oid])).toEqual([{ oid, why: 'truncated' }]);
  });

  it('takes the checkpoint side of a raw diff: written paths, not deleted ones or gitlinks', () => {
    const a = 'a'.repeat(40);
    const b = 'b'.repeat(40);
    const zero = '0'.repeat(40);
    const raw = Buffer.from(
      [
        `:100644 100644 ${a} ${zero} M`,
        'src/a.txt',
        `:000000 100644 ${zero} ${b} A`,
        'only-on-disk.txt',
        `:160000 160000 ${b} ${zero} M`,
        'sub',
        `:120000 000000 ${b} ${zero} D`,
        'link',
        '',
      ].join('\0'),
    );
    expect(blobsToWrite(raw)).toEqual([
      { oid: a, path: 'src/a.txt' },
      { oid: b, path: 'link' },
    ]);
  });

  it('lists trees from ls-tree -r -d and headers from batch-check', () => {
    const t = 'c'.repeat(40);
    expect(treesBelow(Buffer.from(`040000 tree ${t}\tsrc\x00040000 tree ${t}\tsrc/deep dir\0`))).toEqual([
      { oid: t, path: 'src' },
      { oid: t, path: 'src/deep dir' },
    ]);
    expect(parseBatchCheck(Buffer.from(`${t} tree 30\nabc^{tree} missing\n`))).toEqual([
      { oid: t, type: 'tree', size: 30 },
      { oid: 'abc^{tree}', missing: true },
    ]);
  });

  it('groups objects by size, an oversized one alone', () => {
    const groups = groupBySize(
      [{ size: 40 }, { size: 50 }, { size: 200 }, { size: 10 }].map((o, i) => ({ ...o, i })),
      100,
    );
    expect(groups.map((g) => g.map((o) => o.i))).toEqual([[0, 1], [2], [3]]);
  });

  it('says which objects, where, and that nothing was restored', () => {
    const message = describeCorrupt('f'.repeat(40), [
      { oid: 'a'.repeat(40), why: 'hash-mismatch', path: 'src/a.txt' },
      { oid: 'b'.repeat(40), why: 'missing', path: '' },
    ]);
    expect(message).toContain('aaaaaaaaaaaa (src/a.txt) does not match its hash');
    expect(message).toContain('bbbbbbbbbbbb (the root tree) is missing');
    expect(message).toContain('Nothing was restored');
  });
});
