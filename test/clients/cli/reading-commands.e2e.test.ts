/**
 * `ribosome runs`, `journal export` and `log` through the real binary against real executions: the
 * demo plan run to its end on the scripted provider, and a one-codon plan read while its server runs.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { formatDuration } from '../../../src/clients/model/format.ts';
import type { RunRow } from '../../../src/clients/runs/run-rows.ts';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import { type EventType, eventCategory } from '../../../src/core/protocol/index.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { codonScript, simplePlan, writeTurns } from '../../helpers/plans.ts';
import { waitFor } from '../../helpers/processes.ts';
import { journalRows, ROOT, runCli, runToEnd, startServer, tempDir } from '../../helpers/server-process.ts';

const { temps, clients } = e2eResources();
const DEMO_PLAN = join(ROOT, 'examples/demo/plan.yaml');
const DEMO_SCRIPT = join(ROOT, 'examples/scripts/demo.yaml');

async function cli(args: string[], cwd?: string) {
  const proc = runCli(args, cwd ? { cwd } : {});
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

function temp() {
  const t = tempDir();
  temps.push(t);
  return t.path;
}

/** `ribosome runs --json` prints the rows as the reader makes them. */
type RunJson = RunRow;

describe('reading a finished execution (the demo plan run to its end)', () => {
  it('runs, journal export and log tell what happened; the exit summary says it on stderr', async () => {
    const dir = temp();
    const exec = join(dir, 'ribosome-runs', 'demo');
    const run = await runToEnd(DEMO_PLAN, exec, DEMO_SCRIPT);
    expect(run.code, run.stderr).toBe(0);
    // stdout keeps its contract: one listening line; the summary is stderr's last line.
    expect(run.stdout).toMatch(/^listening ws:\/\/127\.0\.0\.1:\d+\n$/);
    expect(run.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^ribosome: done: 3\/3 codons, \$0\.\d{4}, (?:\d+ms|\d+\.\ds|\d+m\d\ds), exit 0 \(the plan has run\)$/,
    );

    const events = journalRows(exec);
    const completed = events.filter((e) => e.type === 'codon.completed').map((e) => e.data);
    const spent = completed.reduce((sum, d) => sum + Number(d.cost), 0);

    const json = await cli(['runs', '--execution', exec, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout) as RunJson[];
    expect(rows).toHaveLength(1);
    const [row] = rows as [RunJson];
    expect(row).toMatchObject({ status: 'completed', done: 3, total: 3, failed: [] });
    expect(row.id).toBe(events.at(-1)?.runId);
    expect(row.cost).toBeCloseTo(spent, 6);
    expect(row.branch).toBe(`run/${row.id}`);
    expect(row.endedAt).not.toBeNull();
    expect(Date.parse(row.endedAt as string) - Date.parse(row.startedAt)).toBe(row.durationMs);
    expect(run.stderr).toContain(`$${spent.toFixed(4)}`);

    // The table, found without --execution: the only execution under ./ribosome-runs.
    const table = await cli(['runs'], dir);
    expect(table.code, table.stderr).toBe(0);
    const [header, line] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^run\s+status\s+codons\s+cost\s+started\s+duration\s+branch$/);
    expect(line?.split(/\s{2,}/)).toEqual([
      row.id,
      'completed',
      '3/3',
      `$${row.cost.toFixed(4)}`,
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/),
      formatDuration(row.durationMs),
      row.branch,
    ]);

    // journal export: the journaled envelopes as they were sent, in order, one a line.
    const exported = await cli(['journal', 'export', '--execution', exec]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toBe(events.map((e) => `${e.json}\n`).join(''));
    const ofRun = await cli(['journal', 'export', '--run', row.id, '--out', 'events.jsonl'], dir);
    expect(ofRun.code, ofRun.stderr).toBe(0);
    expect(ofRun.stdout).toBe('');
    expect(readFileSync(join(dir, 'events.jsonl'), 'utf8')).toBe(exported.stdout);
    const unknown = await cli(['journal', 'export', '--execution', exec, '--run', 'run-nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`no run "run-nope" in ${exec}; its runs: ${row.id}`);
    expect(unknown.stdout).toBe('');

    // log: the console view of the journal, without the TUI.
    const log = await cli(['log', '--execution', exec]);
    expect(log.code, log.stderr).toBe(0);
    const lines = log.stdout.split('\n');
    const codonLines = lines.filter((l) => /^[<>] /.test(l));
    expect(codonLines.map((l) => l.replace(/ \(.*$/, ''))).toEqual([
      '> write-hello: Write hello',
      '< write-hello completed',
      '> edit-hello: Edit hello',
      '< edit-hello completed',
      '> write-readme: Write README',
      '< write-readme completed',
    ]);
    expect(lines).toContain('    file  created hello.txt');
    expect(lines).toContain('= all 3 codons of plan "demo" are done');
    // The loop detector steers codon 2: its message action, announced (examples/demo/plan.yaml).
    expect(lines).toContain(
      '    [loop-detector] message edit-hello (repeating equals true): A monitor of this run sees you repeating yourself (ls -la, the same listing again). The edit is done: stop listing the directory and report the result.',
    );
    // ... and the message reached the running agent (journaled as codon.message once handed over).
    expect(
      lines.some((l) => l.startsWith('    hear  sentinel loop-detector → agent: A monitor of this run')),
    ).toBe(true);
  }, 90_000);

  it('without --execution: none or several executions under ./ribosome-runs is exit 2 naming them', async () => {
    const dir = temp();
    const none = await cli(['runs'], dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no execution under ribosome-runs; name one with --execution DIR');
    for (const name of ['a', 'b']) {
      mkdirSync(join(dir, 'ribosome-runs', name, '.ribosome'), { recursive: true });
      writeFileSync(join(dir, 'ribosome-runs', name, '.ribosome', 'ribosome.db'), '');
    }
    for (const args of [['runs'], ['journal', 'export'], ['log']]) {
      const two = await cli(args, dir);
      expect(two.code, args.join(' ')).toBe(2);
      expect(two.stderr).toContain(
        '2 executions under ribosome-runs; name one with --execution DIR: ribosome-runs/a, ribosome-runs/b',
      );
    }
    const notOne = await cli(['runs', '--execution', dir]);
    expect(notOne.code).toBe(2);
    expect(notOne.stderr).toContain(`${dir} is not an execution directory`);
  });

  it('a run that ends with a failed codon: runs and the exit summary name it, exit 1', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'plan.yaml'), simplePlan(['one', 'two', 'three']));
    writeFileSync(join(dir, 'script.yaml'), codonScript({ one: 'ok', two: 500, three: 'ok' }));
    const exec = join(dir, 'exec');
    const run = await runToEnd(join(dir, 'plan.yaml'), exec, join(dir, 'script.yaml'), [], {
      env: { RIBOSOME_AGENT_MAX_RETRIES: '0' },
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^ribosome: not done: 1\/3 codons, failed or stopped: two, \$0\.\d{4}, (?:\d+ms|\d+\.\ds|\d+m\d\ds), exit 1 \(a codon failed\)$/,
    );
    const json = await cli(['runs', '--execution', exec, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject([{ status: 'failed', done: 1, total: 3, failed: ['two'] }]);
  });

  it('a run a budget stopped: the exit summary says which budget ran out, not "a codon failed"', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'plan.yaml'), simplePlan(['one', 'two', 'three']));
    // two's one answer costs far past $1 (Sonnet input at $3 per million tokens).
    const expensive = '  - content:\n      - text: Spent a lot.\n    usage: { input_tokens: 900000 }\n';
    writeFileSync(join(dir, 'script.yaml'), `turns:\n${writeTurns('one.txt', 'one')}${expensive}`);
    const exec = join(dir, 'exec');
    const run = await runToEnd(join(dir, 'plan.yaml'), exec, join(dir, 'script.yaml'), ['--max-cost', '1']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr.trimEnd().split('\n').at(-1)).toMatch(
      /^ribosome: not done: 1\/3 codons, failed or stopped: two, \$\d+\.\d{4}, (?:\d+ms|\d+\.\ds|\d+m\d\ds), exit 1 \(plan budget exceeded: maxCostUsd 1\.00, spent \d+\.\d{4}\)$/,
    );
  });
});

describe('reading an execution while its server runs', () => {
  it('runs reads it live; journal export matches what a client received; log --follow follows until the server stops', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'plan.yaml'), simplePlan(['one']));
    writeFileSync(join(dir, 'script.yaml'), codonScript({ one: 'ok' }));
    const exec = join(dir, 'exec');
    const server = await startServer(join(dir, 'plan.yaml'), exec, [
      '--no-autostart',
      '--exit-when-done',
      '--scripted-provider',
      join(dir, 'script.yaml'),
    ]);

    // A raw client keeps every frame as it came.
    const frames: string[] = [];
    const raw = new WebSocket(server.url);
    raw.on('message', (data) => frames.push(data.toString()));
    await new Promise((resolve) => raw.once('open', resolve));
    raw.send(JSON.stringify({ type: 'handshake', data: { mode: 'readonly', sendPreviousEvents: true } }));
    const closed = new Promise((resolve) => raw.once('close', resolve));
    await waitFor(() => frames.some((f) => f.includes('"server.ready"')), 'the handshake');

    const live = await cli(['runs', '--execution', exec, '--json']);
    expect(live.code, live.stderr).toBe(0);
    expect(JSON.parse(live.stdout)).toMatchObject([{ status: 'running', done: 0, total: 1, endedAt: null }]);

    // --url without --follow: the journal so far, through the server, then it exits.
    const once = await cli(['log', '--url', server.url]);
    expect(once.code, once.stderr).toBe(0);
    expect(once.stdout).toMatch(/^= idle; 0 of 1 codons done; codon.next starts one$/m);

    const follow = runCli(['log', '--follow', '--execution', exec]);
    await waitFor(() => follow.stdout().includes('= idle;'), 'log --follow to print the idle server');

    const driver = await RibosomeClient.connect(server.url, { mode: 'readandwrite' });
    clients.push(driver);
    driver.send('codon.next');
    expect((await server.exited).code, server.stderr()).toBe(0);
    const followed = await follow.exited;
    expect(followed.code, follow.stderr()).toBe(0);
    expect(follow.stderr()).toBe('');
    await closed;

    // Every journaled event is one the client received, the same JSON, in the same order.
    const received: unknown[] = [];
    for (const frame of frames) {
      const event = JSON.parse(frame) as { type: EventType; data: { eventHistory?: unknown[] } };
      if (event.type === 'handshake.response') received.push(...(event.data.eventHistory ?? []));
      else if (eventCategory[event.type] !== 'connection') received.push(event);
    }
    const exported = await cli(['journal', 'export', '--execution', exec]);
    expect(exported.code, exported.stderr).toBe(0);
    const lines = exported.stdout.trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual(received);
    // Live frames are the journaled text itself.
    for (const line of lines.slice(-5)) expect(frames).toContain(line);

    // What --follow printed live is what log prints from the journal afterwards.
    const after = await cli(['log', '--execution', exec]);
    expect(follow.stdout()).toBe(after.stdout);
    expect(after.stdout).toContain('< one completed');
    expect(after.stdout).toContain('= all 1 codons of plan "test" are done');

    const ended = await cli(['runs', '--execution', exec, '--json']);
    expect(JSON.parse(ended.stdout)).toMatchObject([{ status: 'completed', done: 1, total: 1 }]);
  });

  it('after a crash (SIGKILL), runs says crashed and log reads the journal', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'plan.yaml'), simplePlan(['one']));
    writeFileSync(join(dir, 'script.yaml'), codonScript({ one: { sleep: 300 } }));
    const exec = join(dir, 'exec');
    const server = await startServer(join(dir, 'plan.yaml'), exec, [
      '--scripted-provider',
      join(dir, 'script.yaml'),
    ]);
    const c = await RibosomeClient.connect(server.url, { mode: 'readonly', sendPreviousEvents: true });
    clients.push(c);
    if (!c.handshake.eventHistory.some((e) => e.type === 'codon.started')) await c.next('codon.started');
    server.kill('SIGKILL');
    await server.exited;
    const json = await cli(['runs', '--execution', exec, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const [row] = JSON.parse(json.stdout) as [RunJson];
    expect(row).toMatchObject({ status: 'crashed', done: 0, total: 1 });
    expect(row.endedAt).not.toBeNull();
    const follow = await cli(['log', '--follow', '--execution', exec]);
    expect(follow.code).toBe(0);
    expect(follow.stdout).toContain('> one: Codon one');
    expect(follow.stderr).toContain(`no server is running on ${exec}`);
  });
});
