/**
 * Benchmark child: one share of the fan-out benchmark's clients, in a process of its own, so that
 * what the clients cost is accounted to them and not to the process that measures the server.
 * `node fanout-clients.ts <port> <count> <firstIndex> <handshake 0|1>`: connects `count` lean
 * clients (every tenth, by its global index, reads its events for latency), prints `ready`, then
 * every 10 ms `min <n>` (the fewest events any of its clients received). On `stop` on stdin it
 * prints `result <json>` (latencies of the sampled events, frames, its CPU time and event-loop delay
 * over the measured span) and exits.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { type LeanClient, leanClient } from './lean-ws-client.ts';

export type ClientShareResult = {
  latencies: number[];
  frames: number;
  /** CPU time of this process over the span from `go` to `stop`, and that span. */
  cpuMs: number;
  wallMs: number;
  loopP99Ms: number;
  loopMaxMs: number;
};

const [port, count, first, handshake] = process.argv.slice(2).map(Number) as [number, number, number, number];
const now = () => performance.timeOrigin + performance.now();
const received = new Uint32Array(count);
const latencies: number[] = [];
let frames = 0;

const clients: LeanClient[] = [];
for (let start = 0; start < count; start += 100) {
  const chunk = await Promise.all(
    Array.from({ length: Math.min(100, count - start) }, (_, k) => {
      const i = start + k;
      return leanClient(port, {
        ...(handshake ? { hello: '{"type":"handshake","data":{"mode":"readonly"}}', skipFrames: 2 } : {}),
        wantPayload: (first + i) % 10 === 0,
        onFrame: (payload) => {
          received[i] = (received[i] ?? 0) + 1;
          frames++;
          if (!payload) return;
          const event = JSON.parse(payload.toString()) as { type: string; data: { message: string } };
          if (event.type === 'info') latencies.push(now() - Number.parseFloat(event.data.message));
        },
      });
    }),
  );
  clients.push(...chunk);
}

const loop = monitorEventLoopDelay({ resolution: 5 });
let cpuStart = process.cpuUsage();
let wallStart = now();
const reporter = setInterval(() => {
  let min = Number.POSITIVE_INFINITY;
  for (const n of received) min = Math.min(min, n);
  process.stdout.write(`min ${min}\n`);
}, 10);
process.stdout.write('ready\n');

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'go') {
    latencies.length = 0;
    frames = 0;
    cpuStart = process.cpuUsage();
    wallStart = now();
    loop.reset();
    loop.enable();
    return;
  }
  if (line !== 'stop') return;
  clearInterval(reporter);
  loop.disable();
  const cpu = process.cpuUsage(cpuStart);
  const result: ClientShareResult = {
    latencies,
    frames,
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs: now() - wallStart,
    loopP99Ms: loop.percentile(99) / 1e6,
    loopMaxMs: loop.max / 1e6,
  };
  for (const c of clients) c.close();
  process.stdout.write(`result ${JSON.stringify(result)}\n`, () => process.exit(0));
});
