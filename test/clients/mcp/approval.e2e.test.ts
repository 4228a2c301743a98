/**
 * `ribosome mcp` and approval gates (docs/review.md#approval-gates): a wait ends when the run is held
 * for approval, the status says which codon waits, and the approve tool lets the run go on.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { writePlanAndScript, writeTurns } from '../../helpers/plans.ts';
import { tempDir } from '../../helpers/server-process.ts';
import { call, endRun, mcpClient } from './mcp-helpers.ts';

const temps: Array<{ remove(): void }> = [];
const clients: Client[] = [];
const runs: number[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const pid of runs.splice(0)) endRun(pid);
});
afterAll(() => {
  for (const t of temps.splice(0)) t.remove();
});

const PLAN =
  'name: gates\nagent: builtin\ncodons:\n  - id: one\n    name: Design\n    prompt: Do one.\n    approval: required\n  - id: two\n    prompt: Do two.\n';
const track = (id: string) =>
  `  - name: ${id}\n    match: { firstUser: "Do ${id}." }\n    turns:\n${writeTurns(`${id}.txt`, 'ok').replace(/^(?=.)/gm, '    ')}`;

describe('ribosome mcp and approval gates', () => {
  it('wait ends at the gate, status names the codon, approve lets the run go on', {
    timeout: 120_000,
  }, async () => {
    const t = tempDir();
    temps.push(t);
    const files = writePlanAndScript(t.path, PLAN, `tracks:\n${track('one')}${track('two')}turns: []\n`);
    const { client: mcp } = await mcpClient(t.path);
    clients.push(mcp);
    const exec = join(t.path, 'exec');
    const started = await call(mcp, 'start_plan', {
      plan: files.plan,
      scriptedProvider: files.script,
      execution: exec,
    });
    expect(started.result.isError, started.text).toBeFalsy();
    runs.push(Number(started.structured?.pid));

    const held = await call(mcp, 'wait', { execution: exec });
    expect(held.structured?.end).toMatch(/^(idle|already)$/);
    expect(held.structured?.status).toMatchObject({
      approvalWait: { codonId: 'one', codonName: 'Design' },
      idle: { heldBy: 'approval' },
    });
    expect(held.text).toContain('waiting for approval of codon one (Design) since');

    const wrong = await call(mcp, 'approve', { execution: exec, codon: 'two' });
    expect(wrong.result.isError).toBe(true);
    expect(wrong.text).toContain('NOTHING_TO_APPROVE');
    const approved = await call(mcp, 'approve', { execution: exec, codon: 'one', note: 'fine' });
    expect(approved.result.isError, approved.text).toBeFalsy();
    expect(approved.structured).toMatchObject({ codonId: 'one', how: 'approved' });

    const done = await call(mcp, 'wait', { execution: exec });
    expect(done.structured?.status).toMatchObject({ done: 2, total: 2 });
    expect(done.structured?.status).not.toHaveProperty('approvalWait');
  });
});
