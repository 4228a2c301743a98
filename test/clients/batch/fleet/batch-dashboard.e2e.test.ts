import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BatchDashboardError,
  startBatchDashboard,
} from '../../../../src/clients/batch/fleet/batch-dashboard.ts';
import { RibosomeClient } from '../../../../src/core/client/index.ts';
import { batchSummary, jobResult, metrics, writeSummary } from '../../../helpers/batch-summary.ts';
import { e2eResources } from '../../../helpers/e2e-resources.ts';
import { simplePlan, writePlanAndScript } from '../../../helpers/plans.ts';
import { waitFor } from '../../../helpers/processes.ts';
import { bounded, runCli, startServer, tempDir } from '../../../helpers/server-process.ts';
import { fakeDashboard, get, ticketFrom } from '../../../host/web-server/helpers.ts';

const { temps, clients } = e2eResources();
const dashboards: Array<{ stop(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(dashboards.splice(0).map((d) => d.stop()));
});

/**
 * A batch directory as the runner leaves it mid-way: job a held by a real `ribosome run` (waiting,
 * --no-autostart), job b passed; summary.json written here as the runner writes it.
 */
async function midwayBatch(env: NodeJS.ProcessEnv = {}) {
  const t = tempDir();
  temps.push(t);
  const dir = join(t.path, 'batch');
  const files = writePlanAndScript(t.path, simplePlan(['one']), 'turns: []\n');
  const server = await startServer(
    files.plan,
    join(dir, 'jobs/a'),
    ['--no-autostart', '--scripted-provider', files.script, '--port', '0'],
    20_000,
    env,
  );
  writeSummary(
    dir,
    batchSummary(dir, [
      jobResult(0, 'a', 'running', { startedAt: new Date().toISOString(), metrics: metrics(0, 1, 0) }),
      jobResult(1, 'b', 'passed', { reason: 'every codon passed', metrics: metrics(1, 1, 0.01) }),
    ]),
  );
  return { dir, server, web: fakeDashboard(t.path) };
}

async function dashboardOf(dir: string, root: string, extra: { token?: string; readonly?: boolean } = {}) {
  const dashboard = await startBatchDashboard({
    dir,
    host: '127.0.0.1',
    port: 0,
    readonly: extra.readonly ?? false,
    root,
    ...(extra.token === undefined ? {} : { token: extra.token }),
  });
  dashboards.push(dashboard);
  const url = new URL(dashboard.url);
  return { base: url.origin, key: url.searchParams.get('token') ?? undefined };
}

describe("a batch's dashboard", () => {
  it("lists the jobs with the running one's address from its lock; tickets open it, and only it", async () => {
    const { dir, server, web } = await midwayBatch();
    const { base } = await dashboardOf(dir, web);
    const config = JSON.parse((await get(base, '/config.json')).body);
    expect(config.servers).toEqual([]);
    expect(config.readonly).toBe(false);
    expect(config.batch).toMatchObject({ name: 'fleet-test', dir, state: 'running' });
    expect(
      config.batch.jobs.map((j: { index: number; id: string; state: string; url?: string }) => [
        j.index,
        j.id,
        j.state,
        j.url,
      ]),
    ).toEqual([
      [0, 'a', 'running', server.url],
      [1, 'b', 'passed', undefined],
    ]);

    // The running job: a ticket from its own server, for this page's origin.
    const { status, ticket } = await ticketFrom(base, base, undefined, 0);
    expect(status).toBe(200);
    const page = await RibosomeClient.connect(server.url, {
      mode: 'readandwrite',
      origin: base,
      ticket: async () => ticket!,
    });
    clients.push(page);
    expect(page.mode).toBe('readandwrite');

    // The ended one: 409, saying how it went and what shows its record.
    const ended = await get(base, `/ticket?server=1&id=b&origin=${encodeURIComponent(base)}`);
    expect(ended.status).toBe(409);
    expect(JSON.parse(ended.body)).toEqual({
      error: 'not_running',
      message: `job b is not running: it passed (every codon passed); see it with \`ribosome log --execution ${dir}/jobs/b\``,
    });
    // No such job, or not the job the page thinks: 404.
    for (const query of ['server=2', 'server=0&id=b', 'server=-1', 'server=x']) {
      const answer = await get(base, `/ticket?${query}&origin=${encodeURIComponent(base)}`);
      expect(answer.status, query).toBe(404);
    }
    // Another origin gets none, as for any dashboard.
    expect((await ticketFrom(base, 'http://127.0.0.1:1')).status).toBe(403);

    // Its server ends (summary.json not rewritten yet): the job has no live server any more.
    server.kill('SIGTERM');
    expect((await bounded(server.exited, 20_000))?.code).toBe(0);
    const gone = await get(base, `/ticket?server=0&id=a&origin=${encodeURIComponent(base)}`);
    expect(gone.status).toBe(409);
    expect(JSON.parse(gone.body).message).toContain('job a has no live server right now');
    expect(JSON.parse((await get(base, '/config.json')).body).batch.jobs[0].url).toBeUndefined();
  });

  it('readonly with a token: the page has a key of its own, its tickets are readonly', async () => {
    const token = 'the-jobs-token-0123456789';
    const { dir, server, web } = await midwayBatch({ RIBOSOME_TOKEN: token });
    const { base, key } = await dashboardOf(dir, web, { token, readonly: true });
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await get(base, '/config.json')).status).toBe(401);
    expect((await get(base, '/config.json', { authorization: `Bearer ${token}` })).status).toBe(403);
    const config = JSON.parse((await get(base, '/config.json', { authorization: `Bearer ${key}` })).body);
    expect(config.readonly).toBe(true);
    const { ticket } = await ticketFrom(base, base, key, 0);
    const page = await RibosomeClient.connect(server.url, {
      mode: 'readandwrite',
      origin: base,
      ticket: async () => ticket!,
    });
    clients.push(page);
    expect(page.mode).toBe('readonly');
  });

  it('refuses a directory that is no batch; a summary.json that is not one is said, not fatal', async () => {
    const t = tempDir();
    temps.push(t);
    const web = fakeDashboard(t.path);
    const empty = join(t.path, 'empty');
    mkdirSync(empty);
    for (const dir of [empty, join(t.path, 'missing')]) {
      const refused = await startBatchDashboard({ dir, host: '127.0.0.1', port: 0, readonly: false }).catch(
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(BatchDashboardError);
      expect((refused as BatchDashboardError).code).toBe('not_a_batch');
    }
    const dir = join(t.path, 'batch');
    writeSummary(dir, batchSummary(dir, []));
    const { base } = await dashboardOf(dir, web);
    writeFileSync(join(dir, 'summary.json'), '{"name": "half');
    const config = JSON.parse((await get(base, '/config.json')).body);
    expect(config.batch.problem).toMatch(/^summary\.json is not a batch summary \(not JSON/);
    expect(config.batch.jobs).toEqual([]);
  });
});

describe('ribosome web --batch', () => {
  it('serves the fleet of a batch directory until SIGTERM; refuses a directory that is none, and addresses with it', async () => {
    const t = tempDir();
    temps.push(t);
    const dir = join(t.path, 'batch');
    writeSummary(dir, batchSummary(dir, [jobResult(0, 'a', 'pending')]));
    const web = runCli(['web', '--batch', dir, '--port', '0'], {
      env: { RIBOSOME_WEB_ROOT: fakeDashboard(t.path) },
    });
    await waitFor(() => /^dashboard http:\S+$/m.test(web.stdout()), 'the dashboard line', 20_000);
    const url = /^dashboard (http:\S+)$/m.exec(web.stdout())![1]!;
    const config = JSON.parse((await get(url, '/config.json')).body);
    expect(config.batch.jobs.map((j: { id: string }) => j.id)).toEqual(['a']);
    web.kill('SIGTERM');
    expect((await bounded(web.exited, 10_000))?.code).toBe(0);

    const refusals: Array<[string[], string]> = [
      [
        ['web', '--batch', t.path],
        `${t.path} is not a batch directory (it has no batch.json nor summary.json)`,
      ],
      [
        ['web', '--batch', dir, 'ws://127.0.0.1:7001'],
        "give the servers' addresses or --batch DIR, not both",
      ],
      [['web'], "give the servers' addresses (ws://HOST:PORT) or --batch DIR"],
    ];
    const ended = await Promise.all(
      refusals.map(async ([args]) => {
        const cli = runCli(args);
        return { exit: await bounded(cli.exited, 20_000), stderr: cli.stderr() };
      }),
    );
    for (const [i, [args, message]] of refusals.entries()) {
      expect(ended[i]?.exit?.code, args.join(' ')).toBe(2);
      expect(ended[i]?.stderr).toContain(`ribosome web: ${message}`);
    }
  });
});
