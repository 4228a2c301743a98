/**
 * Web dashboard benchmark: a journal of 100 000 events (an execution of a real run, then agent
 * messages, tool calls and their results, and notes appended through the journal), served by
 * `ribosome run --web`. Measures (a) `history.sync` of the whole journal by a Node client and (b)
 * the time from page.goto to the activity list's first complete render in Debian's chromium (the
 * view's `data-synced`, set once the initial history is folded and rendered), medians of RUNS runs,
 * and the ratio b/a. Writes bench/results/web.json. Needs dist-web/ (`npm run build:web`).
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

export async function run(options: { events?: number; runs?: number } = {}) {
  const events = options.events ?? 100_000;
  const runs = options.runs ?? RUNS;
  if (!existsSync(join(ROOT, 'dist-web/index.html'))) throw new Error('dist-web/ missing: npm run build:web');
  const t = tempDir('ribosome-bench-web-');
  try {
    const seed = await seedExecution(t.path, events);
    const server = await startServer(seed.plan, seed.exec, [...seed.args, '--web', '--web-port', '0']);
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

    // (b) page.goto to the activity list's first complete render.
    const renderMs: number[] = [];
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
          const start = performance.now();
          await page.goto(dashboard);
          // The activity view as soon as the page has its tabs (the sync is usually still running).
          await page.click('[data-testid="tab-activity"]');
          await page.waitForSelector('[data-testid="view-activity"][data-synced="true"]');
          renderMs.push(performance.now() - start);
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
