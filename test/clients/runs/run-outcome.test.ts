import { describe, expect, it } from 'vitest';
import { outcomeDifferences } from '../../../src/clients/runs/run-outcome.ts';
import type { OutcomeCodon } from '../../../src/llm/cassette/schema.ts';

const codon = (codonId: string, more: Partial<OutcomeCodon> = {}): OutcomeCodon => ({
  codonId,
  status: 'completed',
  tree: `${codonId}-tree-0123456789`,
  cost: 0.01,
  gates: [],
  ...more,
});

describe('replay --check: what differs between the recorded outcome and the replayed one', () => {
  it('nothing when the codons ended alike, with the same trees, costs and gates', () => {
    const run = [codon('a', { gates: [{ name: 'gate 1', command: 'npm test', passed: true }] }), codon('b')];
    expect(outcomeDifferences(run, structuredClone(run))).toEqual([]);
  });

  it('a sentence for each difference: status, files, cost, gate, and codons on one side only', () => {
    const recorded = [
      codon('a', { gates: [{ name: 'gate 1', command: 'npm test', passed: true }] }),
      codon('b'),
      codon('c'),
    ];
    const replayed = [
      codon('a', { gates: [{ name: 'gate 1', command: 'npm test', passed: false }], cost: 0.02 }),
      codon('b', {
        status: 'failed',
        tree: 'other-tree-abcdef',
        failure: 'TOKEN is not set in Ribosome’s environment',
      }),
      codon('d'),
    ];
    expect(outcomeDifferences(recorded, replayed)).toEqual([
      'codon a: it cost $0.0100, now $0.0200',
      'codon a: gate 1 (npm test) passed in the recording, failed in the replay',
      'codon b: completed in the recording, failed in the replay (TOKEN is not set in Ribosome’s environment)',
      "codon b: its checkpoint's tree was b-tree-01234, now other-tree-a: the files differ",
      'codon c: completed in the recording, never run in the replay',
      'codon d: not in the recording, completed in the replay',
    ]);
  });

  it('a sentinel that fails where it answered (or falls silent) is named; another count alone is not', () => {
    const recorded = [codon('a', { sentinels: [{ id: 'narrator', outputs: 3, errors: 0 }] })];
    expect(
      outcomeDifferences(recorded, [codon('a', { sentinels: [{ id: 'narrator', outputs: 0, errors: 3 }] })]),
    ).toEqual([
      'codon a: sentinel narrator gave 3 outputs, 0 errors in the recording, 0 outputs, 3 errors in the replay',
    ]);
    expect(
      outcomeDifferences(recorded, [codon('a', { sentinels: [{ id: 'narrator', outputs: 4, errors: 0 }] })]),
    ).toEqual([]);
    expect(outcomeDifferences(recorded, [codon('a')])).toEqual([
      'codon a: sentinel narrator gave 3 outputs, 0 errors in the recording, 0 outputs, 0 errors in the replay',
    ]);
  });

  it('a gate that is new, or gone, is named with its command', () => {
    const gate = { name: 'gate 1', command: 'npm test', passed: true };
    expect(outcomeDifferences([codon('a')], [codon('a', { gates: [gate] })])).toEqual([
      'codon a: gate 1 (npm test) is new in the replay (passed)',
    ]);
    expect(outcomeDifferences([codon('a', { gates: [gate] })], [codon('a')])).toEqual([
      'codon a: gate 1 (npm test) did not run in the replay',
    ]);
  });
});
