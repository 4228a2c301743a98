import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { circles, importEdges, packageImports } from '../../scripts/import-graph.ts';

const root = mkdtempSync(join(tmpdir(), 'ribosome-import-graph-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const write = (file: string, text: string) => {
  mkdirSync(join(root, file, '..'), { recursive: true });
  writeFileSync(join(root, file), text);
};

describe('the import graph the layer checks read', () => {
  write(
    'src/a/one.ts',
    "import { two } from '../b/two.ts';\nimport type { T } from '../b/types.ts';\nexport const one = 1;\n",
  );
  write('src/a/side.ts', "import '../b/effect.ts';\nimport 'ink';\n");
  write('src/a/lazy.ts', "export const later = () => import('../b/two.ts');\n");
  write('src/b/two.ts', "export { one } from '../a/one.ts';\nexport const two = 2;\n");
  write('src/b/types.ts', 'export type T = number;\n');
  write('src/b/effect.ts', 'globalThis.x = 1;\n');

  it('sees every form of import: named, type-only, side-effect, dynamic, re-export', () => {
    const edges = importEdges(root).map((e) => `${e.from} -> ${e.to}`);
    expect(edges.sort()).toEqual([
      'src/a/lazy.ts -> src/b/two.ts',
      'src/a/one.ts -> src/b/two.ts',
      'src/a/one.ts -> src/b/types.ts',
      'src/a/side.ts -> src/b/effect.ts',
      'src/b/two.ts -> src/a/one.ts',
    ]);
    expect(packageImports(root)).toEqual([{ from: 'src/a/side.ts', pkg: 'ink' }]);
  });

  it('finds the circle a re-export closes', () => {
    expect(circles(importEdges(root))).toEqual([['src/a/one.ts', 'src/b/two.ts']]);
  });
});
