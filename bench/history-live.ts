/**
 * The `live` variant of the history benchmark (BENCH_HISTORY_VARIANT=live; issue 16, trial M1, M2,
 * L2): CLIENTS typed clients (default 2, BENCH_HISTORY_CLIENTS) start `streamHistory` of an
 * EVENTS-event journal (default 1 000 000) at once, each in its own process
 * (bench/history-sync-client.ts), against a real `ribosome run` process, in two scenarios of the same
 * run: `quiet` (nothing else happens: the baseline) and `live` (a fake `claude` agent,
 * bench/attach-agent.ts, writes RATE messages/s, default 5 000, BENCH_HISTORY_RATE, through the server
 * for the whole sync). Each client spends BENCH_HISTORY_CLIENT_US (default 10) µs of CPU per event it
 * gets, as a consumer that folds them does (a TUI, a dashboard: at most 100 000 events/s; a plain
 * client on a quiet machine takes 200 000 a second and never falls behind). Each server starts on a fresh copy of the seeded execution. Per run: whether
 * every sync completed with every event once and in order, the slowest sync's time, the longest gap
 * between two batches at a client, the live events a client got, the clients' peak RSS, the server's
 * RSS idle before, its peak (VmHWM) and 5 s after the syncs. BENCH_BASE_DIR=<another checkout> runs
 * its server and client too (`base`), for a before/after in one run. Medians over BENCH_HISTORY_REPS
 * (default 2). Writes bench/results/history-live.json.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { RibosomeClient } from '../src/core/client/index.ts';
import { firstListening, killGroup, tempDir } from '../test/helpers/server-process.ts';
import { mb, median, round } from './stats.ts';
import { seedExecution } from './web.ts';

const HERE = import.meta.dirname;
const PLAN = `name: history-live
agent: builtin
codons:
  - id: one
    name: Codon one
    prompt: Do one.
  - id: live
    name: Live messages
    agent: claude-code
    prompt: Talk.
`;

type Kind = 'ribosome' | 'base';
type Scenario = 'quiet' | 'live';
type ClientResult = {
  ok: boolean;
  events: number;
  seeded: number;
  batches: number;
  seconds: number;
  maxGapMs: number;
  liveDuring: number;
  liveAfter: number;
  liveLagMs: number;
  outOfOrder: number;
  maxRssMb: number;
  error?: string;
};

/** VmRSS and VmHWM (peak) of a process, in bytes. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') * 1024, peak: kb('VmHWM') * 1024 };
}

function startServer(checkout: string, plan: string, exec: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(
    join(checkout, 'bin/ribosome'),
    ['run', plan, '--headless', '--execution', exec, ...args],
    { env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, stdout: () => out, stderr: () => err };
}

function syncClient(
  checkout: string,
  url: string,
  workUs: number,
): { child: ChildProcess; result: Promise<ClientResult> } {
  const child = spawn(process.execPath, [join(HERE, 'history-sync-client.ts'), url], {
    env: { ...process.env, BENCH_CLIENT_DIR: checkout, BENCH_CLIENT_US_PER_EVENT: String(workUs) },
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const result = new Promise<ClientResult>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('result ')) resolve(JSON.parse(line.slice(7)) as ClientResult);
    });
    child.once('exit', (code) => reject(new Error(`sync client exited with ${code} before its result`)));
  });
  return { child, result };
}

async function once(
  kind: Kind,
  scenario: Scenario,
  seed: { dir: string; plan: string; args: string[] },
  options: { clients: number; rate: number; expected: number; workUs: number },
) {
  const checkout = kind === 'base' ? process.env.BENCH_BASE_DIR! : join(HERE, '..');
  const work = join(seed.dir, `run-${kind}-${scenario}`);
  rmSync(work, { recursive: true, force: true });
  // A fresh copy each time: a live run adds events, and every run must sync the same journal.
  const copied = spawnSync('cp', ['-a', join(seed.dir, 'exec'), work]);
  if (copied.status !== 0) throw new Error(`cp: ${copied.stderr}`);
  const server = startServer(checkout, seed.plan, work, seed.args, {
    RIBOSOME_CLAUDE_BIN: join(seed.dir, 'claude'),
    ATTACH_AGENT_RATE: String(options.rate),
    ATTACH_AGENT_MS: '600000',
  });
  const clients: ChildProcess[] = [];
  try {
    const listened = await firstListening(server.child, server.stdout, server.exited, 60_000);
    if (!('url' in listened)) throw new Error(`server did not start: ${server.stderr()}`);
    const control = await RibosomeClient.connect(listened.url, { mode: 'readandwrite', keepEvents: 0 });
    const pid = server.child.pid!;
    const idleRss = memoryOf(pid).rss;
    if (scenario === 'live') {
      control.send('codon.start', { codonId: 'live' });
      await control.next('assistant.action', () => true, 60_000);
    }
    const started = Array.from({ length: options.clients }, () =>
      syncClient(checkout, listened.url, options.workUs),
    );
    clients.push(...started.map((s) => s.child));
    let peakDuring = 0;
    const sampler = setInterval(() => {
      peakDuring = Math.max(peakDuring, memoryOf(pid).rss);
    }, 100);
    const results = await Promise.all(started.map((s) => s.result));
    clearInterval(sampler);
    const { peak } = memoryOf(pid);
    if (scenario === 'live') {
      control.send('codon.forceStop', { reason: 'bench done' });
      await control.next('codon.completed', () => true, 60_000).catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 5_000));
    const afterRss = memoryOf(pid).rss;
    await control.close();
    const complete = results.filter((r) => r.ok && r.seeded === options.expected && r.outOfOrder === 0);
    return {
      kind,
      scenario,
      clients: options.clients,
      completed: complete.length,
      errors: results.flatMap((r) => (r.error ? [r.error] : [])).join('; ') || undefined,
      seconds: round(Math.max(...results.map((r) => r.seconds))),
      maxGapS: round(Math.max(...results.map((r) => r.maxGapMs)) / 1000),
      liveDuring: Math.min(...results.map((r) => r.liveDuring)),
      liveAfter: Math.min(...results.map((r) => r.liveAfter)),
      liveLagS: round(Math.max(...results.map((r) => r.liveLagMs)) / 1000),
      clientMaxRssMb: round(Math.max(...results.map((r) => r.maxRssMb)), 1),
      serverIdleRssMb: mb(idleRss),
      serverPeakRssMb: mb(Math.max(peak, peakDuring)),
      serverAfterRssMb: mb(afterRss),
    };
  } finally {
    for (const c of clients) killGroup(c, 'SIGKILL');
    killGroup(server.child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(server.child, 'SIGKILL'), 20_000);
    await server.exited;
    clearTimeout(timer);
    rmSync(work, { recursive: true, force: true });
  }
}

export async function runLive(
  options: { events?: number; reps?: number; clients?: number; rate?: number; workUs?: number } = {},
) {
  const events = options.events ?? Number(process.env.BENCH_HISTORY_EVENTS ?? 1_000_000);
  const reps = options.reps ?? Number(process.env.BENCH_HISTORY_REPS ?? 2);
  const clients = options.clients ?? Number(process.env.BENCH_HISTORY_CLIENTS ?? 2);
  const rate = options.rate ?? Number(process.env.BENCH_HISTORY_RATE ?? 5_000);
  const workUs = options.workUs ?? Number(process.env.BENCH_HISTORY_CLIENT_US ?? 10);
  const kinds: Kind[] = process.env.BENCH_BASE_DIR ? ['base', 'ribosome'] : ['ribosome'];
  const t = tempDir('ribosome-bench-history-live-');
  try {
    const seeded = await seedExecution(t.path, events, PLAN);
    const fake = join(t.path, 'claude');
    writeFileSync(fake, `#!/bin/sh\nexec "${process.execPath}" "${join(HERE, 'attach-agent.ts')}"\n`);
    chmodSync(fake, 0o755);
    const seed = { dir: t.path, plan: seeded.plan, args: seeded.args };
    const runs: Array<Awaited<ReturnType<typeof once>>> = [];
    for (let i = 0; i < reps; i++) {
      for (const kind of kinds) {
        for (const scenario of ['quiet', 'live'] as const) {
          const result = await once(kind, scenario, seed, { clients, rate, expected: events, workUs });
          console.log(JSON.stringify(result));
          runs.push(result);
        }
      }
    }
    console.table(runs);
    const of = (
      kind: Kind,
      scenario: Scenario,
      key:
        | 'seconds'
        | 'serverPeakRssMb'
        | 'serverAfterRssMb'
        | 'serverIdleRssMb'
        | 'clientMaxRssMb'
        | 'maxGapS'
        | 'liveLagS',
    ) => median(runs.filter((r) => r.kind === kind && r.scenario === scenario).map((r) => r[key]));
    const summary = Object.fromEntries(
      kinds.map((kind) => [
        kind,
        {
          completed: `${runs.filter((r) => r.kind === kind).reduce((n, r) => n + r.completed, 0)} of ${runs.filter((r) => r.kind === kind).length * clients}`,
          quietSeconds: of(kind, 'quiet', 'seconds'),
          liveSeconds: of(kind, 'live', 'seconds'),
          liveToQuiet: round(of(kind, 'live', 'seconds') / of(kind, 'quiet', 'seconds')),
          liveMaxGapS: of(kind, 'live', 'maxGapS'),
          liveLagS: of(kind, 'live', 'liveLagS'),
          serverIdleRssMb: of(kind, 'quiet', 'serverIdleRssMb'),
          serverPeakRssMbQuiet: of(kind, 'quiet', 'serverPeakRssMb'),
          serverPeakRssMbLive: of(kind, 'live', 'serverPeakRssMb'),
          serverAfterRssMbLive: of(kind, 'live', 'serverAfterRssMb'),
          clientMaxRssMbQuiet: of(kind, 'quiet', 'clientMaxRssMb'),
          clientMaxRssMbLive: of(kind, 'live', 'clientMaxRssMb'),
        },
      ]),
    );
    console.log({ events, clients, rate, clientUsPerEvent: workUs, ...summary });
    mkdirSync(join(HERE, 'results'), { recursive: true });
    writeFileSync(
      join(HERE, 'results/history-live.json'),
      JSON.stringify({ events, clients, rate, clientUsPerEvent: workUs, runs, summary }, null, 2),
    );
    return { runs, summary };
  } finally {
    t.remove();
  }
}
