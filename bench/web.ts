/**
 * Web dashboard benchmark: a journal of 100 000 events (an execution of a real run, then agent
 * messages, tool calls and their results, and notes appended through the journal), served by
 * `ribosome run --web`. Measures (a) `history.sync` of the whole journal by a Node client and (b)
 * the time from the page's navigation to the activity list's first complete render in Debian's
 * chromium (the view's `data-synced`, set once the initial history is folded and rendered: taken by
 * the page itself, after the next frame, so the browser driver's polling is not counted), medians
 * of RUNS runs, and the ratio b/a; (b) split into its start (to the history's first batch), the
 * stream (to its last) and the render. Writes bench/results/web.json. Needs dist-web/ (`npm run
 * build:web`); BENCH_WEB_ROOT serves another build of the page (a before/after in one run);
 * BENCH_WEB_PROFILE=DIR writes each round's CPU profile of the page there (chromium's profiler over
 * CDP, sampling every 200 us: open it in chromium's DevTools; the profiler slows the page).
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { RibosomeClient } from '../src/core/client/index.ts';
import { openDatabase } from '../src/execution/journal/database.ts';
import { SqliteJournal } from '../src/execution/journal/sqlite-journal.ts';
import { simplePlan, writePlanAndScript } from '../test/helpers/plans.ts';
import { waitFor } from '../test/helpers/processes.ts';
import { killAll, ROOT, startServer, tempDir } from '../test/helpers/server-process.ts';
import { isMain, median, round } from './stats.ts';

const CHROMIUM = '/usr/bin/chromium';
const RUNS = 5;

/** Event `i` of the seeded journal: a message, a tool call, its result, a note, in turn. */
function seeded(i: number, at: string) {
  const codonId = 'one';
  const kinds = [
    ['assistant.action', { codonId, action: 'message', content: `Looking at part ${i} of the work.` }],
    [
      'assistant.action',
      {
        codonId,
        action: 'tool_use',
        content: `Read src/file-${i}.ts`,
        toolName: 'Read',
        toolInput: { file_path: `src/file-${i}.ts` },
      },
    ],
    [
      'tool.result',
      {
        codonId,
        toolUseId: `tool-${i}`,
        toolName: 'Read',
        result: `export const value${i} = ${i};\n`.repeat(4),
        truncated: false,
        originalLength: 100,
        executionTimeMs: 3,
        isError: false,
      },
    ],
    ['info', { message: `checked item ${i}` }],
  ] as const;
  const [type, data] = kinds[i % kinds.length]!;
  const id = `seed-${i}`;
  return {
    id,
    runId: 'seeded',
    type,
    timestamp: at,
    json: JSON.stringify({ id, timestamp: at, type, data }),
  };
}

/**
 * An execution directory holding a real run of `plan` (whose first codon is `one`), then `events`
 * more appended through the journal. Shared with bench/attach.ts.
 */
export async function seedExecution(
  dir: string,
  events: number,
  plan = simplePlan(['one']),
): Promise<{ plan: string; exec: string; args: string[] }> {
  const files = writePlanAndScript(dir, plan, 'turns: []\n');
  const exec = join(dir, 'exec');
  const args = ['--no-autostart', '--scripted-provider', files.script];
  const first = await startServer(files.plan, exec, args);
  first.kill('SIGTERM');
  await first.exited;
  const journal = new SqliteJournal(openDatabase(join(exec, '.ribosome/ribosome.db'), 'normal'));
  const t0 = Date.now();
  for (let i = 0; i < events; i += 10_000) {
    const n = Math.min(10_000, events - i);
    journal.append(Array.from({ length: n }, (_, k) => seeded(i + k, new Date(t0 + i + k).toISOString())));
  }
  journal.close();
  return { plan: files.plan, exec, args };
}

type PageTimes = { __bench: { firstBatch?: number; lastBatch?: number; synced?: number } };

/**
 * Runs in the page before its own script (page.addInitScript): notes when the first and the last
 * history.batch arrive, and when the activity view first says `data-synced` (after the next frame,
 * so its drawing counts), in ms since navigation. Self-contained: the browser runs its source.
 */
function timePage(): void {
  const times: PageTimes['__bench'] = {};
  (window as unknown as PageTimes).__bench = times;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      this.addEventListener('message', (m: MessageEvent) => {
        // The frame's head only (a batch is a quarter of a megabyte): its type follows its id and timestamp.
        if (typeof m.data !== 'string' || !m.data.slice(0, 160).includes('"type":"history.batch"')) return;
        times.firstBatch ??= performance.now();
        times.lastBatch = performance.now();
      });
    }
  };
  new MutationObserver((_, observer) => {
    if (!document.querySelector('[data-testid="view-activity"][data-synced="true"]')) return;
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => (times.synced = performance.now())));
  }).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['data-synced'],
  });
}

export async function run(options: { events?: number; runs?: number } = {}) {
  const events = options.events ?? 100_000;
  const runs = options.runs ?? RUNS;
  if (!existsSync(join(ROOT, 'dist-web/index.html'))) throw new Error('dist-web/ missing: npm run build:web');
  const t = tempDir('ribosome-bench-web-');
  try {
    const seed = await seedExecution(t.path, events);
    const root = process.env.BENCH_WEB_ROOT;
    const profileDir = process.env.BENCH_WEB_PROFILE;
    if (profileDir) mkdirSync(profileDir, { recursive: true });
    const server = await startServer(
      seed.plan,
      seed.exec,
      [...seed.args, '--web', '--web-port', '0'],
      20_000,
      root ? { RIBOSOME_WEB_ROOT: root } : {},
    );
    await waitFor(() => /^dashboard http:\S+$/m.test(server.stderr()), 'the dashboard line', 30_000);
    const dashboard = /^dashboard (http:\S+)$/m.exec(server.stderr())![1]!;

    // (a) history.sync of the whole journal by a Node client (the typed client, as the page uses it).
    const syncMs: number[] = [];
    let synced = 0;
    for (let i = 0; i < runs; i++) {
      const client = await RibosomeClient.connect(server.url, { mode: 'readonly' });
      const start = performance.now();
      synced = (await client.syncHistory(120_000)).length;
      syncMs.push(performance.now() - start);
      await client.close();
    }

    // (b) navigation to the activity list's first complete render, as the page's clock tells it.
    const renderMs: number[] = [];
    const parts: { startMs: number[]; streamMs: number[]; drawMs: number[] } = {
      startMs: [],
      streamMs: [],
      drawMs: [],
    };
    let rows = '';
    if (!existsSync(CHROMIUM))
      console.warn(`no ${CHROMIUM}: the browser half is skipped (apt-get install chromium)`);
    else {
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      try {
        for (let i = 0; i < runs; i++) {
          const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
          const page = await context.newPage();
          page.setDefaultTimeout(120_000);
          await page.addInitScript(timePage);
          const profiler = profileDir ? await context.newCDPSession(page) : undefined;
          if (profiler) {
            await profiler.send('Profiler.enable');
            await profiler.send('Profiler.setSamplingInterval', { interval: 200 });
            await profiler.send('Profiler.start');
          }
          await page.goto(dashboard);
          // The activity view as soon as the page has its tabs (the sync is usually still running).
          await page.click('[data-testid="tab-activity"]');
          await page.waitForSelector('[data-testid="view-activity"][data-synced="true"]');
          const times = await page.waitForFunction(() => (window as unknown as PageTimes).__bench.synced);
          const t = (await times.jsonValue()) as unknown as number;
          const { firstBatch = Number.NaN, lastBatch = Number.NaN } = await page.evaluate(
            () => (window as unknown as PageTimes).__bench,
          );
          if (profiler && profileDir) {
            const { profile } = await profiler.send('Profiler.stop');
            writeFileSync(join(profileDir, `web-${i + 1}.cpuprofile`), JSON.stringify(profile));
          }
          renderMs.push(t);
          parts.startMs.push(firstBatch);
          parts.streamMs.push(lastBatch - firstBatch);
          parts.drawMs.push(t - lastBatch);
          rows = (await page.locator('[data-testid="activity-count"]').textContent()) ?? '';
          await context.close();
        }
      } finally {
        await browser.close();
      }
    }
    server.kill('SIGTERM');
    await server.exited;

    const a = median(syncMs);
    const b = renderMs.length > 0 ? median(renderMs) : Number.NaN;
    const result = {
      events,
      runs,
      historyEvents: synced,
      activityRows: rows,
      nodeHistorySyncMs: round(a, 0),
      nodeHistorySyncRunsMs: syncMs.map((x) => round(x, 0)),
      pageFirstActivityRenderMs: round(b, 0),
      pageFirstActivityRenderRunsMs: renderMs.map((x) => round(x, 0)),
      // Medians of the page's parts: to the first history.batch, from it to the last, from that to the render.
      pageStartMs: round(median(parts.startMs), 0),
      pageStreamMs: round(median(parts.streamMs), 0),
      pageDrawMs: round(median(parts.drawMs), 0),
      ratioPageToSync: round(b / a, 2),
    };
    console.log(JSON.stringify(result, null, 2));
    mkdirSync(join(import.meta.dirname, 'results'), { recursive: true });
    writeFileSync(join(import.meta.dirname, 'results/web.json'), JSON.stringify(result, null, 2));
    return result;
  } finally {
    killAll();
    rmSync(t.path, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await run({ events: Number(process.env.BENCH_WEB_EVENTS ?? 100_000) });
