import { describe, expect, it } from 'vitest';
import type { CheckpointType } from '../../../src/core/protocol/shared.ts';
import {
  type CodonCheckpointRequest,
  resolveCodonCheckpoint,
} from '../../../src/execution/checkpoints/resolve-codon.ts';
import type { CheckpointRecord } from '../../../src/execution/checkpoints/schema.ts';

/** A lineage from a compact notation: `init`, or `<codon>:<type>`, each given a numbered SHA. */
function lineage(...steps: string[]): CheckpointRecord[] {
  return steps.map((step, i) => {
    const [codonId, type] = step.split(':');
    const initial = step === 'init';
    return {
      sha: `sha${i}`,
      parentSha: i > 0 ? `sha${i - 1}` : null,
      runId: 'r1',
      codonId: initial ? '' : codonId!,
      codonName: initial ? '' : `Codon ${codonId}`,
      checkpointType: initial ? 'rig-setup' : (type as CheckpointType),
      status: 'completed',
      timestamp: '2026-01-01T00:00:00.000Z',
      initial,
    };
  });
}

const normal = lineage('init', 'a:rig-setup', 'a:completed', 'b:completed', 'c:rig-setup', 'c:error');

describe('resolveCodonCheckpoint', () => {
  it.each<[string, CheckpointRecord[], string, CodonCheckpointRequest, string]>([
    ['an explicit type', normal, 'a', 'completed', 'sha2'],
    ['an explicit rig-setup', normal, 'c', 'rig-setup', 'sha4'],
    ['start with a rig-setup checkpoint', normal, 'a', 'start', 'sha1'],
    ['start without rig-setup: the previous codon completed', normal, 'b', 'start', 'sha2'],
    [
      'start of a first codon without rig-setup: the initial one',
      lineage('init', 'a:completed'),
      'a',
      'start',
      'sha0',
    ],
    ['end of a completed codon', normal, 'a', 'end', 'sha2'],
    ['end of a failed codon', normal, 'c', 'end', 'sha5'],
    ['end of a skipped codon', lineage('init', 'a:rig-setup', 'a:skipped'), 'a', 'end', 'sha2'],
    [
      'the latest of a redone codon',
      lineage('init', 'a:rig-setup', 'a:error', 'a:rig-setup', 'a:completed'),
      'a',
      'rig-setup',
      'sha3',
    ],
    [
      'start of a redo: its own rig-setup',
      lineage('init', 'a:rig-setup', 'a:error', 'a:rig-setup', 'a:completed'),
      'a',
      'start',
      'sha3',
    ],
    [
      'start of a codon run again later: before its latest attempt',
      lineage('init', 'a:completed', 'b:completed', 'a:completed'),
      'a',
      'start',
      'sha2',
    ],
    [
      'start after a skipped codon: the skipped checkpoint',
      lineage('init', 'a:skipped', 'b:completed'),
      'b',
      'start',
      'sha1',
    ],
    [
      'end while a redo is under way: the last end reached',
      lineage('init', 'a:completed', 'a:rig-setup'),
      'a',
      'end',
      'sha1',
    ],
    [
      'start across runs: the later run initial checkpoint',
      lineage('init', 'a:completed', 'init', 'b:completed'),
      'b',
      'start',
      'sha2',
    ],
  ])('resolves %s', (_, checkpoints, codonId, request, sha) => {
    const result = resolveCodonCheckpoint(checkpoints, codonId, request);
    expect(result.ok ? result.value.sha : result.error.message).toBe(sha);
  });

  it.each<[string, CheckpointRecord[], string, CodonCheckpointRequest, string]>([
    ['an unknown codon', normal, 'zzz', 'end', 'Codon zzz has no checkpoint'],
    ['a missing type', normal, 'b', 'error', 'Codon b has no error checkpoint; it has: completed.'],
    ['end of a codon still running', normal.slice(0, 5), 'c', 'end', 'Codon c has not ended'],
    ['start with nothing before it', lineage('a:completed'), 'a', 'start', 'No checkpoint precedes codon a'],
  ])('refuses %s', (_, checkpoints, codonId, request, message) => {
    const result = resolveCodonCheckpoint(checkpoints, codonId, request);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('CHECKPOINT_NOT_FOUND');
    expect(result.error.message).toContain(message);
  });

  it('never takes an initial checkpoint for a codon with an empty id', () => {
    expect(resolveCodonCheckpoint(lineage('init'), '', 'rig-setup').ok).toBe(false);
  });
});
