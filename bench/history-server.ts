/**
 * Benchmark child: the server side of the history benchmark, on an execution directory the parent
 * has seeded. `ribosome` runs the real runtime (control server, journal, history.sync); `bare` is the
 * floor: a plain `ws` server that answers the handshake with the journal's size and, on a
 * history.sync, reads the same journal in batches of 1 000 rows
 * and sends each batch as one frame of the same shape, with nothing else (no backpressure, no
 * per-client bound). Prints `port <n>` when ready; answers `stats` on stdin with
 * `stats <json>` (peak RSS, CPU since start).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setImmediate as tick } from 'node:timers/promises';
import { WebSocketServer } from 'ws';
import { openDatabase } from '../src/execution/journal/database.ts';
import { startInProcess } from '../test/helpers/in-process.ts';

const kind = process.argv[2] === 'bare' ? 'bare' : 'ribosome';
const dir = process.argv[3];
if (!dir) throw new Error('usage: history-server.ts ribosome|bare <executionDir>');

let maxRss = process.memoryUsage().rss;
const sampler = setInterval(() => {
  maxRss = Math.max(maxRss, process.memoryUsage().rss);
}, 10);

async function ribosome(): Promise<{ port: number; stop(): Promise<void> }> {
  const rt = await startInProcess({}, dir!);
  return { port: rt.port, stop: () => rt.cleanup() };
}

async function bare(): Promise<{ port: number; stop(): Promise<void> }> {
  const db = openDatabase(join(dir!, '.ribosome/ribosome.db'));
  const read = db.prepare('SELECT seq, json FROM events WHERE seq > ? ORDER BY seq LIMIT 1000');
  const count = db.prepare('SELECT count(*) AS n FROM events');
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise((r) => wss.once('listening', r));
  wss.on('connection', (ws) => {
    ws.on('message', async (data) => {
      if (String(data).includes('"handshake"')) {
        const { n } = count.get() as { n: number };
        ws.send(`{"type":"handshake.response","data":{"totalEvents":${n}}}`);
        return;
      }
      if (!String(data).includes('history.sync')) return;
      let after = 0;
      for (;;) {
        const rows = read.all(after) as Array<{ seq: number; json: string }>;
        after = rows.at(-1)?.seq ?? after;
        const hasMore = rows.length === 1000;
        ws.send(
          `{"id":"${randomUUID()}","timestamp":"${new Date().toISOString()}","type":"history.batch","data":{"events":[${rows.map((r) => r.json).join(',')}],"hasMore":${hasMore}}}`,
        );
        if (!hasMore) return;
        await tick();
      }
    });
  });
  return {
    port: (wss.address() as { port: number }).port,
    stop: async () => {
      for (const ws of wss.clients) ws.terminate();
      await new Promise((r) => wss.close(r));
      db.close();
    },
  };
}

const server = kind === 'bare' ? await bare() : await ribosome();
const cpuStart = process.cpuUsage();
process.stdout.write(`port ${server.port}\n`);
createInterface({ input: process.stdin }).on('line', async (line) => {
  if (line === 'stats') {
    maxRss = Math.max(maxRss, process.memoryUsage().rss);
    const cpu = process.cpuUsage(cpuStart);
    process.stdout.write(`stats ${JSON.stringify({ maxRss, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
  } else if (line === 'stop') {
    clearInterval(sampler);
    await server.stop();
    process.exit(0);
  }
});
