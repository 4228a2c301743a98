import { describe, expect, it } from 'vitest';
import { describeCheckpoint, resolveCheckpointSha } from '../../../src/execution/checkpoints/resolve-sha.ts';
import type { CheckpointRecord } from '../../../src/execution/checkpoints/schema.ts';

function record(sha: string, fields: Partial<CheckpointRecord> = {}): CheckpointRecord {
  return {
    sha,
    parentSha: null,
    runId: 'r1',
    codonId: 'c1',
    codonName: 'Build',
    checkpointType: 'completed',
    status: 'completed',
    timestamp: '2026-01-01T00:00:00.000Z',
    initial: false,
    ...fields,
  };
}

const a = record('abcd1234aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', { codonId: 'c1', checkpointType: 'rig-setup' });
const b = record('abcd1234bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', { codonId: 'c2', codonName: 'Test' });
const c = record('0123456789012345678901234567890123456789', { initial: true, codonId: '', codonName: '' });
const all = [a, b, c];

describe('resolveCheckpointSha', () => {
  it.each([
    ['a full SHA', c.sha, c],
    ['a unique prefix', '0123', c],
    ['a prefix past the shared part', 'abcd1234b', b],
    ['upper case', 'ABCD1234A', a],
    ['surrounding spaces', '  0123456 ', c],
  ])('finds %s', (_, query, expected) => {
    expect(resolveCheckpointSha(all, query)).toEqual({ ok: true, value: expected });
  });

  it('reports an ambiguous prefix with each candidate named', () => {
    const result = resolveCheckpointSha(all, 'abcd12');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('CHECKPOINT_AMBIGUOUS');
    expect(result.error.candidates).toEqual([a.sha, b.sha]);
    expect(result.error.message).toContain('abcd1234aaaa rig-setup of codon Build (c1), run r1');
    expect(result.error.message).toContain('abcd1234bbbb completed of codon Test (c2), run r1');
  });

  it('counts a checkpoint listed twice once', () => {
    expect(resolveCheckpointSha([a, a], 'abcd')).toEqual({ ok: true, value: a });
  });

  it.each([
    ['an unknown SHA', 'ffff', 'CHECKPOINT_NOT_FOUND'],
    ['a too short prefix', 'abc', 'INVALID_INPUT'],
    ['non-hex text', 'main', 'INVALID_INPUT'],
    ['an empty string', '', 'INVALID_INPUT'],
    ['a too long string', 'a'.repeat(65), 'INVALID_INPUT'],
  ])('refuses %s', (_, query, code) => {
    const result = resolveCheckpointSha(all, query);
    expect(result.ok ? null : result.error.code).toBe(code);
  });

  it('describes an initial checkpoint as such', () => {
    expect(describeCheckpoint(c)).toBe('initial checkpoint of run r1');
  });
});
