import { describe, expect, it } from 'vitest';
import {
  type ExpandableItem,
  expandLoops,
  parseRuntimeCodonId,
  runtimeCodonId,
} from '../../src/plan/expand-loops.ts';

const codon = (codonId: string) => ({ codonId });
const loop = (id: string, iterations: number, codons: string[]): ExpandableItem<{ codonId: string }> => ({
  kind: 'loop',
  loop: { id, name: `Loop ${id}`, iterations, archiveOnSuccess: ['tmp/**'] },
  codons: codons.map(codon),
});

describe('expandLoops', () => {
  it('runs a loop body iteration by iteration: a#0, b#0, a#1, b#1', () => {
    const expanded = expandLoops([{ kind: 'codon', codon: codon('setup') }, loop('l', 2, ['a', 'b'])]);
    expect(expanded.map((e) => e.id)).toEqual(['setup', 'a#0', 'b#0', 'a#1', 'b#1']);
  });

  it('a single-codon loop gives <codonId>#<iteration>', () => {
    expect(expandLoops([loop('rounds', 3, ['refine'])]).map((e) => e.id)).toEqual([
      'refine#0',
      'refine#1',
      'refine#2',
    ]);
  });

  it('records the loop, the iteration and the end of each iteration on every runtime codon', () => {
    const expanded = expandLoops([loop('l', 2, ['a', 'b']), { kind: 'codon', codon: codon('after') }]);
    expect(expanded.map((e) => e.loop && [e.loop.id, e.loop.iteration, e.loop.lastInIteration])).toEqual([
      ['l', 0, false],
      ['l', 0, true],
      ['l', 1, false],
      ['l', 1, true],
      undefined,
    ]);
    expect(expanded[0]!.loop).toEqual({
      id: 'l',
      name: 'Loop l',
      iteration: 0,
      iterations: 2,
      lastInIteration: false,
      archiveOnSuccess: ['tmp/**'],
    });
  });

  it('shares the declared codon between iterations (one prompt in memory, not one per iteration)', () => {
    const [first, second] = expandLoops([loop('l', 2, ['a'])]);
    expect(first!.codon).toBe(second!.codon);
  });

  it('expands nothing from an empty plan', () => {
    expect(expandLoops([])).toEqual([]);
  });
});

describe('runtime codon ids', () => {
  it('round-trip', () => {
    expect(runtimeCodonId('refine', 3)).toBe('refine#3');
    expect(parseRuntimeCodonId('refine#3')).toEqual({ codonId: 'refine', iteration: 3 });
    expect(parseRuntimeCodonId('setup')).toEqual({ codonId: 'setup' });
  });
});
