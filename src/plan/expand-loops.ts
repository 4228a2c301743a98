import type { LoopPlacement } from './loaded-plan.ts';

/**
 * Loop expansion: a loop of codons a, b with 2 iterations runs a#0, b#0, a#1, b#1. Ids may not
 * contain "#", so runtime ids never collide with declared ones. Loops do not nest (the schema refuses
 * it): one level keeps runtime ids, rollback targets and archive points unambiguous.
 */

export const ITERATION_SEPARATOR = '#';

export type ExpandableItem<C> =
  | { kind: 'codon'; codon: C }
  | {
      kind: 'loop';
      loop: Omit<LoopPlacement, 'iteration' | 'lastInIteration'>;
      codons: readonly C[];
    };

export type ExpandedCodon<C> = { id: string; codon: C; loop?: LoopPlacement };

export function runtimeCodonId(codonId: string, iteration: number): string {
  return `${codonId}${ITERATION_SEPARATOR}${iteration}`;
}

/** `refine#1` -> { codonId: 'refine', iteration: 1 }; `setup` -> { codonId: 'setup' }. */
export function parseRuntimeCodonId(id: string): { codonId: string; iteration?: number } {
  const match = /^(.*)#(\d+)$/.exec(id);
  return match === null ? { codonId: id } : { codonId: match[1]!, iteration: Number(match[2]) };
}

export function expandLoops<C extends { codonId: string }>(
  items: readonly ExpandableItem<C>[],
): ExpandedCodon<C>[] {
  const out: ExpandedCodon<C>[] = [];
  for (const item of items) {
    if (item.kind === 'codon') {
      out.push({ id: item.codon.codonId, codon: item.codon });
      continue;
    }
    const { loop, codons } = item;
    for (let iteration = 0; iteration < loop.iterations; iteration++) {
      for (const [i, codon] of codons.entries()) {
        out.push({
          id: runtimeCodonId(codon.codonId, iteration),
          codon,
          loop: { ...loop, iteration, lastInIteration: i === codons.length - 1 },
        });
      }
    }
  }
  return out;
}
