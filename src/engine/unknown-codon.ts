import { echo } from '../core/protocol/index.ts';

/** The UNKNOWN_CODON message: the id asked for (cut to its first characters) and the plan's ids. */
export function unknownCodonMessage(codonId: string, planName: string, ids: readonly string[]): string {
  return `no codon "${echo(codonId)}" in plan "${planName}"; its codons: ${ids.join(', ') || '(none)'}`;
}
