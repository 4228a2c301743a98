/**
 * Attach benchmark (issue 16): what a person sees attaching to a long run. An execution whose journal
 * holds EVENTS (default 1 000 000) realistic events (bench/web.ts's seed) is served by a real
 * `ribosome run --web` process; in the same run it measures, medians of RUNS:
 *   (a) history.sync of the whole journal by a lean Node client (connect, handshake, every batch);
 *   (b) `ribosome tui` in a real pseudo-terminal (tmux), from its start to the first frame written
 *       once the history is folded (RIBOSOME_TUI_TRACE, src/clients/tui/trace.ts), and its peak RSS;
 *   (c) the dashboard in chromium, from page.goto to the activity view's first synced render, and
 *       its JS heap after a GC;
 * then, with one TUI and one page attached, a fake `claude` agent (bench/attach-agent.ts) writes
 * RATE messages/s for LIVE_MS through the server: time from the agent writing a message to the
 * first TUI frame / page frame showing it (or a later one), p50/p99, beside the time to a plain
 * client receiving it (the server's own share). Writes bench/results/attach.json.
 * BENCH_ATTACH_EVENTS, BENCH_ATTACH_RUNS, BENCH_ATTACH_LIVE_MS scale it down for a quick run.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { RibosomeClient } from '../src/core/client/index.ts';
import { waitFor } from '../test/helpers/processes.ts';
import { BIN, killAll, startServer, tempDir } from '../test/helpers/server-process.ts';
import { hasTmux, ownTmux } from '../test/helpers/tmux.ts';
import { leanClient, maskedTextFrame } from './lean-ws-client.ts';
import { isMain, median, percentile, round } from './stats.ts';
import { seedExecution } from './web.ts';

const CHROMIUM = '/usr/bin/chromium';
const RATE = 5_000;
const now = () => performance.timeOrigin + performance.now();

const PLAN = `name: attach
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

/** (a) Connect, handshake, history.sync to the last batch; ms. */
async function leanSync(port: number): Promise<number> {
  const start = now();
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const client = await leanClient(port, {
    hello: '{"type":"handshake","data":{"mode":"readonly"}}',
    skipFrames: 2,
    wantPayload: true,
    onFrame: (payload) => {
      if (payload?.subarray(-24).toString().includes('"hasMore":false')) finish();
    },
  });
  client.socket.write(maskedTextFrame('{"id":"bench-sync","type":"history.sync"}'));
  await finished;
  const ms = now() - start;
  client.close();
  return ms;
}

type TraceLine = {
  at: number;
  kind: string;
  data: { maxRssMb: number; rssMb: number; newest: string | null };
};

function readTrace(file: string): TraceLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [at, kind, ...rest] = line.split(' ');
      return { at: Number(at), kind: kind ?? '', data: JSON.parse(rest.join(' ')) };
    });
}

/** Per live message: time from the agent writing it to the first frame whose newest line is it or a later one. */
function frameLatencies(frames: Array<[number, string | null]>, written: Map<number, number>): number[] {
  const shown: Array<[number, number]> = [];
  for (const [at, text] of frames) {
    const m = /live (\d+) /.exec(text ?? '');
    if (m) shown.push([at, Number(m[1])]);
  }
  const out: number[] = [];
  let f = 0;
  for (const [seq, at] of [...written.entries()].sort((x, y) => x[0] - y[0])) {
    while (f < shown.length && (shown[f]?.[1] ?? 0) < seq) f++;
    const frame = shown[f];
    if (frame) out.push(frame[0] - at);
  }
  return out;
}

const stats = (xs: number[]) => {
  const sorted = Float64Array.from(xs).sort();
  return { p50: round(percentile(sorted, 50), 1), p99: round(percentile(sorted, 99), 1), count: xs.length };
};

/** Starts the live codon and collects, per message, when the agent wrote it and when a plain client got it. */
async function liveBurst(url: string, liveMs: number) {
  const client = await RibosomeClient.connect(url, { mode: 'readandwrite', keepEvents: 0 });
  const written = new Map<number, number>();
  const received: number[] = [];
  client.on('assistant.action', (e) => {
    const m = /^live (\d+) ([\d.]+)/.exec(e.data.content);
    if (!m) return;
    const at = Number(m[2]);
    written.set(Number(m[1]), at);
    received.push(now() - at);
  });
  const started = now();
  client.send('codon.start', { codonId: 'live' });
  await client.next('codon.completed', (e) => e.data.codonId === 'live', liveMs + 60_000);
  const tookMs = now() - started;
  await client.close();
  return { written, received, tookMs };
}

export async function run(
  options: { events?: number; runs?: number; liveMs?: number } = {},
): Promise<Record<string, unknown>> {
  const events = options.events ?? Number(process.env.BENCH_ATTACH_EVENTS ?? 1_000_000);
  const runs = options.runs ?? Number(process.env.BENCH_ATTACH_RUNS ?? 3);
  const liveMs = options.liveMs ?? Number(process.env.BENCH_ATTACH_LIVE_MS ?? 10_000);
  if (!hasTmux) throw new Error('tmux is needed (apt-get install tmux)');
  const t = tempDir('ribosome-bench-attach-');
  const tmux = ownTmux('ribosome-bench-attach');
  let tmuxUp = false;
  try {
    const seedStart = now();
    const seed = await seedExecution(t.path, events, PLAN);
    console.log(`seeded ${events} events in ${round((now() - seedStart) / 1000, 1)} s`);
    const fake = join(t.path, 'claude');
    writeFileSync(
      fake,
      `#!/bin/sh\nexec "${process.execPath}" "${join(import.meta.dirname, 'attach-agent.ts')}"\n`,
    );
    chmodSync(fake, 0o755);
    const server = await startServer(
      seed.plan,
      seed.exec,
      [...seed.args, '--web', '--web-port', '0'],
      30_000,
      {
        RIBOSOME_CLAUDE_BIN: fake,
        ATTACH_AGENT_RATE: String(RATE),
        ATTACH_AGENT_MS: String(liveMs),
      },
    );
    await waitFor(() => /^dashboard http:\S+$/m.test(server.stderr()), 'the dashboard line', 30_000);
    const dashboard = /^dashboard (http:\S+)$/m.exec(server.stderr())![1]!;

    // (a) and (b), in turn, so both see the same machine.
    const syncMs: number[] = [];
    const tuiMs: number[] = [];
    const tuiRss: number[] = [];
    let tuiTrace = '';
    for (let i = 0; i < runs; i++) {
      syncMs.push(await leanSync(server.port));
      tuiTrace = join(t.path, `trace-${i}.txt`);
      const session = `tui-${i}`;
      const start = now();
      tmux(
        'new-session',
        '-d',
        '-s',
        session,
        '-x',
        '160',
        '-y',
        '48',
        `RIBOSOME_TUI_TRACE=${tuiTrace} exec ${BIN} tui --readonly ${server.url}`,
      );
      tmuxUp = true;
      await waitFor(
        () => readTrace(tuiTrace).some((l) => l.kind === 'synced'),
        'the TUI synced frame',
        180_000,
      );
      const synced = readTrace(tuiTrace).find((l) => l.kind === 'synced')!;
      tuiMs.push(synced.at - start);
      tuiRss.push(synced.data.maxRssMb);
      // The last one stays attached for the live part.
      if (i < runs - 1) tmux('kill-session', '-t', session);
    }
    const screen = tmux('capture-pane', '-p', '-t', `tui-${runs - 1}`);

    // (c) the dashboard: first synced render and JS heap; the last page stays for the live part.
    const pageMs: number[] = [];
    const heapMb: number[] = [];
    const browser = existsSync(CHROMIUM)
      ? await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
      : undefined;
    if (!browser) console.warn(`no ${CHROMIUM}: the dashboard half is skipped`);
    let page: import('playwright-core').Page | undefined;
    try {
      for (let i = 0; browser && i < runs; i++) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        page = await context.newPage();
        page.setDefaultTimeout(180_000);
        const start = performance.now();
        await page.goto(dashboard);
        await page.click('[data-testid="tab-activity"]');
        await page.waitForSelector('[data-testid="view-activity"][data-synced="true"]');
        pageMs.push(performance.now() - start);
        const cdp = await context.newCDPSession(page);
        await cdp.send('HeapProfiler.collectGarbage');
        const heap = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
        heapMb.push(heap.usedSize / 1048576);
        if (i < runs - 1) await context.close();
      }
      // Every animation frame, the page notes its newest activity row when it changed.
      await page?.evaluate(() => {
        const w = window as unknown as { __frames: Array<[number, string | null]> };
        w.__frames = [];
        let previous: string | null = null;
        const loop = () => {
          const rows = document.querySelectorAll('[data-testid="activity-row"]');
          const text = rows[rows.length - 1]?.textContent ?? null;
          if (text !== previous) w.__frames.push([performance.timeOrigin + performance.now(), text]);
          previous = text;
          requestAnimationFrame(loop);
        };
        requestAnimationFrame(loop);
      });

      // Live: RATE messages/s for liveMs, to the TUI and the page at once.
      const traceBefore = readTrace(tuiTrace).length;
      const live = await liveBurst(server.url, liveMs);
      const lastSeq = Math.max(...live.written.keys());
      const shows = (text: string | null) => Number(/live (\d+) /.exec(text ?? '')?.[1] ?? -1) >= lastSeq;
      await waitFor(
        () => readTrace(tuiTrace).some((l) => shows(l.data.newest)),
        'the TUI showing the last message',
        30_000,
      ).catch(() => undefined);
      const tuiFrames = readTrace(tuiTrace)
        .slice(traceBefore)
        .map((l): [number, string | null] => [l.at, l.data.newest]);
      const tuiPeakRss = Math.max(...readTrace(tuiTrace).map((l) => l.data.maxRssMb));
      let pageFrames: Array<[number, string | null]> = [];
      if (page) {
        await page
          .waitForFunction(
            (seq) =>
              (window as unknown as { __frames: Array<[number, string | null]> }).__frames.some(
                ([, text]) => Number(/live (\d+) /.exec(text ?? '')?.[1] ?? -1) >= seq,
              ),
            lastSeq,
            { timeout: 30_000 },
          )
          .catch(() => undefined);
        pageFrames = await page.evaluate(
          () => (window as unknown as { __frames: Array<[number, string | null]> }).__frames,
        );
      }
      const tuiLive = frameLatencies(tuiFrames, live.written);
      const pageLive = frameLatencies(pageFrames, live.written);
      // Falling behind shows as a tail that grows: compare the first and the last second's messages.
      const tail = (xs: number[]) => {
        const n = Math.max(1, Math.floor((xs.length * 1000) / liveMs));
        return { firstSecondP99: stats(xs.slice(0, n)).p99, lastSecondP99: stats(xs.slice(-n)).p99 };
      };

      const a = median(syncMs);
      const result = {
        events,
        runs,
        historySyncLeanMs: round(a, 0),
        historySyncLeanRunsMs: syncMs.map((x) => round(x, 0)),
        historySyncEventsPerSec: Math.round(events / (a / 1000)),
        tuiFirstSyncedFrameMs: round(median(tuiMs), 0),
        tuiFirstSyncedFrameRunsMs: tuiMs.map((x) => round(x, 0)),
        ratioTuiToSync: round(median(tuiMs) / a, 2),
        tuiPeakRssMbAtSync: median(tuiRss),
        tuiPeakRssMbAfterLive: tuiPeakRss,
        pageFirstSyncedRenderMs: pageMs.length ? round(median(pageMs), 0) : null,
        pageFirstSyncedRenderRunsMs: pageMs.map((x) => round(x, 0)),
        ratioPageToSync: pageMs.length ? round(median(pageMs) / a, 2) : null,
        pageJsHeapMb: heapMb.length ? round(median(heapMb), 1) : null,
        live: {
          rate: RATE,
          durationMs: liveMs,
          messages: live.written.size,
          codonTookMs: round(live.tookMs, 0),
          // The server's share: if its tail grows too, the TUI's and the page's do with it.
          plainClientMs: { ...stats(live.received), ...tail(live.received) },
          tuiFrameMs: { ...stats(tuiLive), ...tail(tuiLive) },
          pageFrameMs: page ? { ...stats(pageLive), ...tail(pageLive) } : null,
        },
      };
      console.log(screen.split('\n').slice(0, 48).join('\n'));
      console.table({
        'history.sync (lean client)': { ms: result.historySyncLeanMs, ratio: 1 },
        'ribosome tui, first synced frame': {
          ms: result.tuiFirstSyncedFrameMs,
          ratio: result.ratioTuiToSync,
        },
        'dashboard, first synced render': {
          ms: result.pageFirstSyncedRenderMs,
          ratio: result.ratioPageToSync,
        },
      });
      console.log(JSON.stringify(result, null, 2));
      mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
      writeFileSync(join(import.meta.dirname, 'results/attach.json'), JSON.stringify(result, null, 2));
      server.kill('SIGTERM');
      await server.exited;
      return result;
    } finally {
      await browser?.close();
    }
  } finally {
    if (tmuxUp) {
      try {
        tmux('kill-server');
      } catch {
        // Already gone.
      }
    }
    killAll();
    rmSync(t.path, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await run();
