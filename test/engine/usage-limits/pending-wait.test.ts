import { describe, expect, it } from 'vitest';
import { pendingUsageWait } from '../../../src/engine/usage-limits/pending-wait.ts';
import { MemoryJournal } from '../../../src/execution/journal/memory-journal.ts';

const row = (type: string, data: unknown) => ({
  id: `e${Math.random()}`,
  runId: 'r1',
  type,
  timestamp: '2026-11-30T12:00:00.000Z',
  json: JSON.stringify({ type, data }),
});
const waiting = {
  codonId: 'two',
  agent: 'claude-code',
  resetsAt: '2026-11-30T15:00:00.000Z',
  until: '2026-11-30T15:01:00.000Z',
  waitMs: 8_000_000,
  message: 'waiting',
};

describe('the usage-limit wait a previous server left', () => {
  it('is the newest usageLimit.waiting that nothing ended', () => {
    const j = new MemoryJournal();
    j.append([
      row('codon.started', { codonId: 'two' }),
      row('usageLimit.waiting', waiting),
      row('info', { message: 'x' }),
    ]);
    expect(pendingUsageWait(j)).toEqual({
      codonId: 'two',
      agent: 'claude-code',
      resetsAt: Date.parse('2026-11-30T15:00:00.000Z'),
      until: Date.parse('2026-11-30T15:01:00.000Z'),
    });
  });

  it('is none once the wait ended, or a codon started after it, or in an empty journal', () => {
    const ended = new MemoryJournal();
    ended.append([
      row('usageLimit.waiting', waiting),
      row('usageLimit.ended', { codonId: 'two', how: 'command' }),
    ]);
    expect(pendingUsageWait(ended)).toBeUndefined();
    const started = new MemoryJournal();
    started.append([row('usageLimit.waiting', waiting), row('codon.started', { codonId: 'two' })]);
    expect(pendingUsageWait(started)).toBeUndefined();
    expect(pendingUsageWait(new MemoryJournal())).toBeUndefined();
  });

  it('ignores a row it cannot read rather than waiting on nonsense', () => {
    const j = new MemoryJournal();
    j.append([row('usageLimit.waiting', { ...waiting, until: 'tomorrow' })]);
    expect(pendingUsageWait(j)).toBeUndefined();
    const k = new MemoryJournal();
    k.append([row('usageLimit.waiting', { codonId: 'two' })]);
    expect(pendingUsageWait(k)).toBeUndefined();
  });
});
