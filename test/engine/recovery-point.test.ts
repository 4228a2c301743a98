import { describe, expect, it } from 'vitest';
import { splitRecorded } from '../../src/engine/recovery.ts';
import { recoveryTarget } from '../../src/engine/what-next.ts';
import type { CheckpointRecord } from '../../src/execution/checkpoints/index.ts';
import { parseKillAt } from '../../src/platform/storage/kill-point.ts';

/** The state decides at recovery: what git holds beyond what the state recorded is not returned to. */

const at = new Date(0).toISOString();
function record(
  sha: string,
  runId: string,
  codonId: string,
  type: CheckpointRecord['checkpointType'],
  initial = false,
): CheckpointRecord {
  return {
    sha,
    parentSha: null,
    runId,
    codonId,
    codonName: codonId,
    checkpointType: type,
    status: type === 'completed' ? 'completed' : 'failed',
    timestamp: at,
    initial,
  };
}

const A0 = record('a0', 'run-a', '', 'rig-setup', true);
const A1 = record('a1', 'run-a', 'one', 'completed');
const B0 = record('b0', 'run-b', '', 'rig-setup', true);
const B1 = record('b1', 'run-b', 'two', 'completed');
const B2 = record('b2', 'run-b', 'three', 'rig-setup');
const B3 = record('b3', 'run-b', 'three', 'completed');

describe('splitRecorded', () => {
  it.each([
    {
      name: 'all recorded: nothing set aside, the last completed is the target',
      lineage: [A0, A1, B0, B1],
      recorded: ['a0', 'a1', 'b0', 'b1'],
      orphans: [],
      target: 'b1',
    },
    {
      name: "a completed checkpoint git holds but the state never recorded (the issue's kill)",
      lineage: [A0, A1, B0, B1, B2, B3],
      recorded: ['a0', 'a1', 'b0', 'b1', 'b2'],
      orphans: ['b3'],
      target: 'b1',
    },
    {
      name: 'several trailing orphans',
      lineage: [A0, A1, B0, B1, B2, B3],
      recorded: ['a0', 'a1', 'b0'],
      orphans: ['b1', 'b2', 'b3'],
      target: 'b0',
    },
    {
      name: "an unrecorded initial checkpoint holds no codon's work: it counts",
      lineage: [A0, A1, B0],
      recorded: ['a0', 'a1'],
      orphans: [],
      target: 'b0',
    },
    {
      name: 'an unrecorded checkpoint amid recorded ones stays on the branch but is never the target',
      lineage: [A0, A1, B0, B1, B2, B3],
      recorded: ['a0', 'a1', 'b0', 'b2', 'b3'],
      orphans: [],
      target: 'b3',
    },
    {
      name: "other runs' checkpoints are theirs to record: not judged here",
      lineage: [A0, A1, B0, B1],
      recorded: ['b0', 'b1'],
      orphans: [],
      target: 'b1',
    },
  ])('$name', ({ lineage, recorded, orphans, target }) => {
    const split = splitRecorded(lineage, 'run-b', new Set(recorded));
    expect(split.orphans.map((c) => c.sha)).toEqual(orphans);
    expect(recoveryTarget(split.clean)?.sha).toBe(target);
  });
});

describe('RIBOSOME_KILL_AT', () => {
  it('names a kill point, optionally the n-th time it is reached', () => {
    expect(parseKillAt(undefined)).toBeUndefined();
    expect(parseKillAt('')).toBeUndefined();
    expect(parseKillAt('checkpoint:completed')).toEqual({ point: 'checkpoint:completed', nth: 1 });
    expect(parseKillAt('checkpoint:completed#3')).toEqual({ point: 'checkpoint:completed', nth: 3 });
  });

  it('refuses what names no kill point, so a test cannot aim at nothing', () => {
    expect(() => parseKillAt('checkpoint:done')).toThrow(/no such kill point; one of checkpoint:initial/);
    expect(() => parseKillAt('archive-moved#0')).toThrow(/whole number from 1/);
    expect(() => parseKillAt('archive-moved#x')).toThrow(/whole number from 1/);
  });
});
