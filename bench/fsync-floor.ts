/**
 * The disk's own sync latency beside a benchmark: a worker thread writes 4 KiB to a file of its own
 * and fdatasyncs it every 20 ms (light: 50 syncs/s), so a commit's time (which holds one fsync) can
 * be judged against what the disk gave at that moment. On a machine shared with other benchmarks
 * this floor, not the code, is often what a durable commit's p99 is made of.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { percentile, round } from './stats.ts';

const CODE = `
const { closeSync, fdatasyncSync, openSync, writeSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const fd = openSync(workerData.file, 'w');
const block = Buffer.alloc(4096, 1);
const times = [];
let stopped = false;
parentPort.on('message', () => { stopped = true; });
const tick = () => {
  if (stopped) { closeSync(fd); parentPort.postMessage(times); return; }
  const start = performance.now();
  writeSync(fd, block, 0, block.length, 0);
  fdatasyncSync(fd);
  times.push(performance.now() - start);
  setTimeout(tick, 20);
};
tick();
`;

export type FsyncFloor = { syncs: number; p50Ms: number; p99Ms: number; maxMs: number };

/** Starts the probe; `stop()` ends it and gives the sync times it saw. */
export function startFsyncFloor(): { stop(): Promise<FsyncFloor> } {
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-bench-fsync-'));
  const worker = new Worker(CODE, { eval: true, workerData: { file: join(dir, 'probe') } });
  return {
    stop: async () => {
      const times = new Promise<number[]>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      worker.postMessage('stop');
      try {
        const sorted = Float64Array.from(await times).sort();
        return {
          syncs: sorted.length,
          p50Ms: round(percentile(sorted, 50)),
          p99Ms: round(percentile(sorted, 99)),
          maxMs: round(percentile(sorted, 100)),
        };
      } finally {
        await worker.terminate();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
