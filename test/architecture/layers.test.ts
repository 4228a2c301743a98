import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { circles, importEdges, sourceFiles } from '../../scripts/import-graph.ts';

/**
 * The layers of src/ (docs/architecture.md): a folder may import from its own layer and the layers
 * below it, never from one above. Listed bottom up.
 */
const LAYERS = [
  'core',
  'platform',
  'plan',
  'llm',
  'execution',
  'agents',
  'engine',
  'host',
  'clients',
] as const;

const ROOT = path.resolve(import.meta.dirname, '../..');
const layerOf = (file: string): number => LAYERS.indexOf(file.split('/')[1] as (typeof LAYERS)[number]);

describe('the layers of src/', () => {
  const edges = importEdges(ROOT);

  it('every source file sits in a layer folder', () => {
    expect(sourceFiles(ROOT).filter((f) => layerOf(f) < 0)).toEqual([]);
  });

  it('no layer imports from a layer above it', () => {
    const upward = edges
      .filter((e) => layerOf(e.to) > layerOf(e.from))
      .map((e) => `${e.from} -> ${e.to} (${LAYERS[layerOf(e.from)]} imports ${LAYERS[layerOf(e.to)]})`);
    expect(upward).toEqual([]);
  });

  it('no file imports itself back through others (no circles)', () => {
    expect(circles(edges)).toEqual([]);
  });

  it("no capability folder imports itself back through others (files at a layer's root count as one)", () => {
    const capability = (file: string) => {
      const parts = file.split('/');
      return parts.length > 3 ? parts.slice(0, 3).join('/') : `${parts[0]}/${parts[1]}/`;
    };
    const between = edges
      .map((e) => ({ from: capability(e.from), to: capability(e.to) }))
      .filter((e) => e.from !== e.to);
    expect(circles(between)).toEqual([]);
  });
});
