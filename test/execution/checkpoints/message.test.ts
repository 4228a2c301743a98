import { describe, expect, it } from 'vitest';
import {
  formatCheckpointMessage,
  parseCheckpointMessage,
} from '../../../src/execution/checkpoints/message.ts';
import type { CheckpointMeta } from '../../../src/execution/checkpoints/schema.ts';

const base: CheckpointMeta = {
  runId: 'run-1',
  codonId: 'c1',
  codonName: 'Write the parser',
  checkpointType: 'completed',
  status: 'completed',
  timestamp: '2026-01-02T03:04:05.678Z',
  initial: false,
};

describe('checkpoint message', () => {
  it.each<[string, Partial<CheckpointMeta>]>([
    ['plain fields', {}],
    ['a name with a line break', { codonName: 'first\nsecond' }],
    ['a name with edge spaces', { codonName: '  padded  ' }],
    ['a name starting with a quote', { codonName: '"quoted" name' }],
    ['an empty name', { codonName: '' }],
    ['unicode and a tab', { codonName: 'Größe 表 🚀\tok' }],
    ['a name that looks like a trailer', { codonName: 'Ribosome-Run: other' }],
    [
      'an initial checkpoint',
      { initial: true, codonId: '', codonName: '', checkpointType: 'rig-setup', status: 'pending' },
    ],
    ['a run id with colons', { runId: '2026-01-02T03:04:05Z' }],
    ['each type', { checkpointType: 'skipped', status: 'skipped' }],
  ])('round-trips %s', (_, fields) => {
    const meta = { ...base, ...fields };
    expect(parseCheckpointMessage(formatCheckpointMessage(meta))).toEqual(meta);
  });

  it('writes a one-line subject and readable trailers', () => {
    const message = formatCheckpointMessage({ ...base, codonName: 'two\nlines' });
    const [subject, blank, ...trailers] = message.trimEnd().split('\n');
    expect(subject).toBe('completed: two lines (c1)');
    expect(blank).toBe('');
    expect(trailers).toContain('Ribosome-Run: run-1');
    expect(trailers).toContain('Ribosome-Codon-Name: "two\\nlines"');
    expect(trailers).toContain('Ribosome-Timestamp: 2026-01-02T03:04:05.678Z');
  });

  it('shortens a long subject', () => {
    const subject = formatCheckpointMessage({ ...base, codonName: 'x'.repeat(300) }).split('\n')[0]!;
    expect(subject.length).toBeLessThanOrEqual(100);
  });

  it.each([
    ['a commit of someone else', 'Fix the bug\n\nSigned-off-by: A <a@b>\n'],
    ['no body', 'completed: x (c1)\n'],
    [
      'an unknown format version',
      formatCheckpointMessage(base).replace('Ribosome-Checkpoint: 1', 'Ribosome-Checkpoint: 9'),
    ],
    ['a missing field', formatCheckpointMessage(base).replace(/Ribosome-Run: .*\n/, '')],
    [
      'an unknown checkpoint type',
      formatCheckpointMessage(base).replace('Type: completed', 'Type: finished'),
    ],
    ['a bad initial flag', formatCheckpointMessage(base).replace('Initial: false', 'Initial: maybe')],
    [
      'a broken JSON value',
      formatCheckpointMessage(base).replace('Name: Write the parser', 'Name: "unterminated'),
    ],
  ])('reads %s as no checkpoint', (_, message) => {
    expect(parseCheckpointMessage(message)).toBeNull();
  });
});
