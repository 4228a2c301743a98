/**
 * `ribosome mcp` over stdio, driven by the MCP SDK's client as any MCP client would drive it: the demo
 * plan started, followed (progress notifications), rolled back to codon two's start, codon two redone,
 * its diff read; the same execution read by a `--readonly` server, whose writing tools are absent.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { READING_TOOLS, WRITING_TOOLS } from '../../../src/clients/mcp/index.ts';
import { isAlive } from '../../../src/platform/processes/process-tree.ts';
import { waitFor } from '../../helpers/processes.ts';
import { tempDir } from '../../helpers/server-process.ts';
import { call, DEMO_PLAN, demoScriptWithRedo, endRun, mcpClient } from './mcp-helpers.ts';

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

function temp(): string {
  const t = tempDir();
  temps.push(t);
  return t.path;
}

async function connect(cwd: string, args: string[] = []) {
  const { client } = await mcpClient(cwd, args);
  clients.push(client);
  return client;
}

describe('ribosome mcp over stdio', () => {
  it('starts the demo, follows it, rolls codon two back, redoes it and reads its diff; read-only reads the same', async () => {
    const dir = temp();
    const script = demoScriptWithRedo(dir);
    const mcp = await connect(dir);
    const names = (await mcp.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual([...READING_TOOLS, ...WRITING_TOOLS].sort());

    const started = await call(mcp, 'start_plan', { plan: DEMO_PLAN, scriptedProvider: script });
    expect(started.result.isError, started.text).toBeFalsy();
    const exec = join(dir, 'ribosome-runs', 'demo');
    expect(started.structured).toMatchObject({ execution: exec, plan: 'demo' });
    runs.push(Number(started.structured?.pid));
    expect(started.structured?.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    expect(started.progress).toContainEqual(expect.stringMatching(/^server listening at ws:/));
    expect(existsSync(join(exec, '.ribosome', 'logs', 'run-output.log'))).toBe(true);

    // Followed to its end: a notification per codon started and ended, codons done counted.
    const waited = await call(mcp, 'wait', { execution: exec });
    expect(waited.result.isError, waited.text).toBeFalsy();
    expect(waited.structured?.end).toMatch(/^(idle|already)$/);
    expect(waited.structured?.status).toMatchObject({ done: 3, total: 3 });
    if (waited.structured?.end === 'idle')
      expect(waited.progress).toContainEqual('codon write-readme completed (3/3 codons done)');
    const status = await call(mcp, 'status', { execution: exec });
    expect(status.text).toMatch(/plan demo: 3\/3 codons done/);
    expect(status.text).toMatch(/idle \(all-codons-completed\)/);
    expect(status.text).toMatch(/ {2}edit-hello {2}completed/);

    // Back to codon two's start: codons two and three undone, the server idles before codon two.
    const back = await call(mcp, 'rollback', { execution: exec, codon: 'edit-hello' });
    expect(back.result.isError, back.text).toBeFalsy();
    expect(back.structured?.undone).toEqual(['edit-hello', 'write-readme']);
    expect(back.progress.some((p) => p.startsWith('rolled back to'))).toBe(true);
    expect(back.structured?.status).toMatchObject({ done: 1, next: 'edit-hello' });

    // Codon two again, followed to its end.
    const redo = await call(mcp, 'redo_codon', { execution: exec });
    expect(redo.result.isError, redo.text).toBeFalsy();
    expect(redo.structured).toMatchObject({ codonId: 'edit-hello', end: 'codon-ended' });
    expect(redo.progress).toContainEqual(expect.stringMatching(/^codon edit-hello started/));
    expect(redo.progress).toContainEqual(expect.stringMatching(/^codon edit-hello completed/));

    const diff = await call(mcp, 'codon_diff', { execution: exec, codon: 'edit-hello' });
    expect(diff.result.isError, diff.text).toBeFalsy();
    expect(diff.text).toContain('+++ b/hello.txt');
    expect(diff.text).toContain('-Hello from Ribosome!');
    expect(diff.text).toContain('+Hello from Ribosome, edited again by the redo!');
    expect(diff.structured?.files).toEqual([
      { path: 'hello.txt', status: 'modified', additions: 1, deletions: 1, binary: false },
    ]);

    // The plan's first codon, taken in an earlier run of the lineage, from the run's initial checkpoint.
    const first = await call(mcp, 'codon_diff', { execution: exec, codon: 'write-hello' });
    expect(first.result.isError, first.text).toBeFalsy();
    expect(first.structured?.files).toEqual([
      expect.objectContaining({ path: 'hello.txt', status: 'added' }),
    ]);

    const events = await call(mcp, 'recent_events', { execution: exec, count: 200 });
    expect(events.text).toContain('<< rolled back to write-hello');
    expect(events.text).toContain('> edit-hello: Edit hello (builtin)');

    // Codon three follows by itself; once the server idles, a codon that does not exist is the server's
    // refusal, as the tool's error.
    const again = await call(mcp, 'wait', { execution: exec, until: 'idle' });
    expect(again.structured?.status).toMatchObject({ done: 3, total: 3 });
    const unknown = await call(mcp, 'rollback', { execution: exec, codon: 'no-such-codon' });
    expect(unknown.result.isError).toBe(true);
    expect(unknown.text).toMatch(/^UNKNOWN_CODON: /);
    const noDiff = await call(mcp, 'codon_diff', { execution: exec, codon: 'no-such-codon' });
    expect(noDiff.result.isError).toBe(true);
    expect(noDiff.text).toMatch(/codon no-such-codon has no end checkpoint.*write-hello/);

    // Nothing runs now: steering is refused by the server; the runs, and the work as a patch, are there.
    const message = await call(mcp, 'send_message', { execution: exec, text: 'hello?' });
    expect(message.result.isError).toBe(true);
    expect(message.text).toMatch(/^NO_CODON_RUNNING: /);
    // A review of codon two: the server quotes the commented line; sent on to the next codon to start.
    const commented = await call(mcp, 'review_comment', {
      execution: exec,
      codon: 'edit-hello',
      file: 'hello.txt',
      start: 1,
      text: 'Say it shorter.',
    });
    expect(commented.result.isError, commented.text).toBeFalsy();
    expect(commented.structured?.hunk).toContain('+Hello from Ribosome, edited again by the redo!');
    const outside = await call(mcp, 'review_comment', {
      execution: exec,
      codon: 'edit-hello',
      file: 'hello.txt',
      start: 40,
      text: 'x',
    });
    expect(outside.text).toMatch(/^UNKNOWN_COMMENT: .*hello\.txt has changed lines 1 \(new side\)/);
    const reviewed = await call(mcp, 'review_submit', { execution: exec, codon: 'edit-hello', to: 'next' });
    expect(reviewed.result.isError, reviewed.text).toBeFalsy();
    expect(reviewed.structured).toMatchObject({ to: 'next', commentIds: [commented.structured?.commentId] });
    const listed = await call(mcp, 'list_runs', { execution: exec });
    expect(listed.structured?.runs).toMatchObject([
      { status: 'rolled-back' },
      { status: 'running', done: 3 },
    ]);
    const patch = join(dir, 'work.patch');
    const exported = await call(mcp, 'export', { execution: exec, patch });
    expect(exported.result.isError, exported.text).toBeFalsy();
    expect(readFileSync(patch, 'utf8')).toContain('+Hello from Ribosome, edited again by the redo!');

    // A read-only server on the same execution: reading tools only, and those work.
    const readonly = await connect(dir, ['--readonly']);
    const offered = (await readonly.listTools()).tools.map((t) => t.name).sort();
    expect(offered).toEqual([...READING_TOOLS].sort());
    const refused = await call(readonly, 'rollback', { execution: exec, codon: 'write-hello' });
    expect(refused.result.isError).toBe(true);
    expect(refused.text).toMatch(/rollback not found/);
    const readDiff = await call(readonly, 'codon_diff', { execution: exec, codon: 'edit-hello' });
    expect(readDiff.text).toContain('+Hello from Ribosome, edited again by the redo!');
    const readStatus = await call(readonly, 'status', { execution: started.structured?.url });
    expect(readStatus.text).toContain(`execution ${exec}`);

    // Stopped through the tool: the run's process ends; reading still works from its files.
    const pid = Number(started.structured?.pid);
    const stopped = await call(mcp, 'stop_server', { execution: exec });
    expect(stopped.result.isError, stopped.text).toBeFalsy();
    await waitFor(() => !isAlive(pid), 'the run to exit', 20_000);
    const after = await call(readonly, 'status', { execution: exec });
    expect(after.text).toContain('server: not running');
    const notLive = await call(mcp, 'skip_codon', { execution: exec });
    expect(notLive.result.isError).toBe(true);
    expect(notLive.text).toMatch(/no Ribosome server is running on .*start_plan/);
  }, 180_000);

  it('answers bad input with tool errors and keeps serving', async () => {
    const dir = temp();
    const mcp = await connect(dir);
    const missing = await call(mcp, 'status', { execution: join(dir, 'nowhere') });
    expect(missing.result.isError).toBe(true);
    expect(missing.text).toMatch(/is not an execution directory/);

    const badPlan = join(dir, 'bad.yaml');
    writeFileSync(badPlan, 'name: bad\ncodons:\n  - id: one\n');
    const refused = await call(mcp, 'start_plan', { plan: badPlan });
    expect(refused.result.isError).toBe(true);
    expect(refused.text).toMatch(/^the plan is not valid; nothing was started:/);
    expect(refused.text).toMatch(/prompt/);
    expect(existsSync(join(dir, 'ribosome-runs'))).toBe(false);

    const noArgs = await call(mcp, 'rollback', { execution: join(dir, 'nowhere') });
    expect(noArgs.result.isError).toBe(true);
    expect(noArgs.text).toMatch(/give either codon/);

    // Still serving.
    expect((await mcp.listTools()).tools.length).toBe(READING_TOOLS.length + WRITING_TOOLS.length);
  });
});
