import { describe, expect, it } from 'vitest';
import { undonePart } from '../../src/engine/rollback.ts';
import type { CheckpointRecord } from '../../src/execution/checkpoints/index.ts';

const at = '2026-01-01T00:00:00.000Z';

describe('what a rollback undoes', () => {
  const rec = (sha: string, codonId: string) =>
    ({
      sha,
      codonId,
      codonName: codonId,
      checkpointType: 'completed',
      status: 'completed',
      timestamp: at,
      runId: 'r',
      initial: false,
      parentSha: null,
    }) as CheckpointRecord;
  const [i, a, b, c, b2] = [
    rec('i', ''),
    rec('a', 'one'),
    rec('b', 'two'),
    rec('c', 'three'),
    rec('b2', 'two'),
  ];

  it('undoes what comes after a target in the lineage', () => {
    expect(undonePart([i, a, b, c], a).map((x) => x.sha)).toEqual(['b', 'c']);
  });

  it('for a target in another run, undoes only what that run does not share', () => {
    // The current lineage went i, a, b2; the target b sits in an older run's history i, a, b, c.
    expect(undonePart([i, a, b2], b, [i, a, b, c]).map((x) => x.sha)).toEqual(['b2']);
  });
});
