import { describe, expect, it } from 'vitest';
import { runStatus, statusText } from '../../../src/clients/mcp/status.ts';
import { reduceAll } from '../../../src/execution/state/reducer.ts';
import type { Transition } from '../../../src/execution/state/transitions.ts';

const runId = 'run-1';
const at = '2026-01-01T00:00:10.000Z';
const started = (codonId: string, codonIndex: number): Transition => ({
  type: 'CodonStarted',
  data: { runId, codonId, codonName: codonId, codonIndex, sessionId: `s-${codonId}`, startTime: at },
});
const moved = (
  codonId: string,
  from: 'pending' | 'preparing' | 'running',
  to: 'preparing' | 'running' | 'completed',
): Transition => ({
  type: 'CodonTransitioned',
  data: { runId, codonId, from, to, at },
});
const checkpoint = (codonId: string, sha: string): Transition => ({
  type: 'CheckpointCreated',
  data: {
    runId,
    checkpoint: {
      codonId,
      codonName: codonId,
      checkpointType: 'completed',
      sha,
      status: 'completed',
      timestamp: at,
    },
  },
});
const plan = {
  name: 'demo',
  recordedAt: at,
  codons: ['one', 'two', 'three'].map((id) => ({ id, name: `Codon ${id}` })),
};
const base: Transition[] = [
  { type: 'RunStarted', data: { runId, startedAt: '2026-01-01T00:00:00.000Z', reason: 'start' } },
  { type: 'InitialCheckpointSet', data: { runId, sha: 'a'.repeat(40) } },
  started('one', 0),
  moved('one', 'preparing', 'running'),
  moved('one', 'running', 'completed'),
  checkpoint('one', 'b'.repeat(40)),
];

describe('runStatus', () => {
  it('a codon running: it is current, none idles (whatever the last idle said)', () => {
    const state = reduceAll([...base, started('two', 1), moved('two', 'preparing', 'running')]);
    const status = runStatus({
      execution: '/x',
      server: 'ws://127.0.0.1:1',
      state,
      plan,
      latestRun: undefined,
      lastTurn: { type: 'codon.started', data: {} },
    });
    expect(status).toMatchObject({
      done: 1,
      total: 3,
      current: 'two',
      next: 'two',
      idle: undefined,
      plan: 'demo',
    });
    expect(status.codons.map((c) => [c.id, c.status])).toEqual([
      ['one', 'completed'],
      ['two', 'running'],
      ['three', 'pending'],
    ]);
  });

  it('idle between codons while its server runs: the idle event says why; without a server none idles', () => {
    const state = reduceAll(base);
    const idle = { reason: 'codon-completed', message: 'idle; one completed', nextCodonId: 'two' };
    const input = {
      execution: '/x',
      state,
      plan,
      latestRun: undefined,
      lastTurn: { type: 'server.idle', data: idle },
    };
    expect(runStatus({ ...input, server: 'ws://127.0.0.1:1' }).idle).toEqual({
      reason: 'codon-completed',
      message: 'idle; one completed',
    });
    expect(runStatus({ ...input, server: undefined }).idle).toBeUndefined();
  });

  it('a failed codon says why, for the model to decide what next', () => {
    const state = reduceAll([
      ...base,
      started('two', 1),
      moved('two', 'preparing', 'running'),
      {
        type: 'CodonTransitioned',
        data: {
          runId,
          codonId: 'two',
          from: 'running',
          to: 'failed',
          at,
          failureReason: { type: 'unknown', retriable: false, message: 'MCP_SECRET is not set' },
        },
      },
    ]);
    const text = statusText(
      runStatus({
        execution: '/x',
        server: undefined,
        state,
        plan,
        latestRun: undefined,
        lastTurn: undefined,
      }),
    );
    expect(text).toContain('  two  failed: MCP_SECRET is not set');
    expect(text).toMatch(/ {2}one {2}completed\n/);
  });

  it('statusText: the server, codons done, what idles, each codon on its line; control characters inert', () => {
    const state = reduceAll(base);
    const text = statusText(
      runStatus({
        execution: '/x',
        server: undefined,
        state,
        plan: { ...plan, name: 'de\u001bmo' },
        latestRun: undefined,
        lastTurn: undefined,
      }),
    );
    expect(text).toBe(
      [
        'execution /x',
        'server: not running (what is recorded is shown)',
        'plan de␛mo: 1/3 codons done',
        'next: two',
        'cost: $0.0000 this run, $0.0000 in all',
        'codons:',
        '  one  completed',
        '  two  pending',
        '  three  pending',
      ].join('\n'),
    );
  });
});
