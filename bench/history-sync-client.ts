/**
 * Benchmark child: one typed client (RibosomeClient, readonly, default options) that streams the
 * whole journal with `streamHistory` while live events may flow, the way a user's script or
 * dashboard would. It keeps nothing but counts: history events (and that the seeded `seed-N` ids come
 * in order, one after the other), batches, the longest gap between two batches, live events received during and after
 * the sync and in the `BENCH_CLIENT_AFTER_MS` after it, and the latest a live event arrived (from
 * the time the agent wrote it). BENCH_CLIENT_US_PER_EVENT spends that much CPU on each event, history
 * or live (a consumer that folds what it gets, or a client on a loaded machine). Prints one line `result <json>` with those, the
 * time, its peak RSS, and the error if the sync failed. `BENCH_CLIENT_DIR` names the checkout whose
 * client it loads (a before/after).
 * Usage: node history-sync-client.ts <ws url>
 */
import { join } from 'node:path';

const url = process.argv[2];
if (!url) throw new Error('usage: history-sync-client.ts <ws url>');
const dir = process.env.BENCH_CLIENT_DIR ?? join(import.meta.dirname, '..');
const { RibosomeClient } = (await import(
  join(dir, 'src/core/client/index.ts')
)) as typeof import('../src/core/client/index.ts');

// What the consumer does with each event (a TUI or dashboard folds it): this many µs of CPU.
const workUs = Number(process.env.BENCH_CLIENT_US_PER_EVENT ?? 0);
const work = (events: number) => {
  if (workUs <= 0) return;
  const until = performance.now() + (events * workUs) / 1000;
  while (performance.now() < until);
};

let maxRss = process.memoryUsage().rss;
const sampler = setInterval(() => {
  maxRss = Math.max(maxRss, process.memoryUsage().rss);
}, 20);

const start = performance.now();
const client = await RibosomeClient.connect(url, { mode: 'readonly' });
let events = 0;
let batches = 0;
let lastSeed = -1;
let seeded = 0;
let outOfOrder = 0;
let last = performance.now();
let maxGapMs = 0;
let liveDuring = 0;
let syncing = true;
let liveAfter = 0;
let liveLagMs = 0;
const epochNow = () => performance.timeOrigin + performance.now();
client.onEvent((e) => {
  if (e.type !== 'assistant.action') return;
  work(1);
  if (syncing) liveDuring++;
  else liveAfter++;
  // bench/attach-agent.ts writes `live <seq> <epoch ms>`: how late this one arrives.
  const written = Number(/^live \d+ ([\d.]+)/.exec(e.data.content)?.[1]);
  if (written > 0) liveLagMs = Math.max(liveLagMs, epochNow() - written);
});
let error: string | undefined;
try {
  await client.streamHistory((batch) => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    batches++;
    events += batch.length;
    work(batch.length);
    for (const e of batch) {
      if (!e.id.startsWith('seed-')) continue;
      const n = Number(e.id.slice(5));
      if (n !== lastSeed + 1) outOfOrder++;
      lastSeed = n;
      seeded++;
    }
  });
} catch (e) {
  error = (e as Error).message;
}
const seconds = (performance.now() - start) / 1000;
syncing = false;
// Live events still flow: count those of the next BENCH_CLIENT_AFTER_MS.
await new Promise((r) => setTimeout(r, Number(process.env.BENCH_CLIENT_AFTER_MS ?? 2_000)));
clearInterval(sampler);
maxRss = Math.max(maxRss, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
const result = {
  ok: error === undefined,
  events,
  seeded,
  batches,
  seconds,
  maxGapMs,
  liveDuring,
  liveAfter,
  liveLagMs,
  outOfOrder,
  maxRssMb: maxRss / 1048576,
  ...(error ? { error } : {}),
};
process.stdout.write(`result ${JSON.stringify(result)}\n`);
await client.close();
process.exit(0);
