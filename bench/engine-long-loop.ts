/**
 * The engine over a long loop (issue 16): a plan whose loop repeats one trivial codon `iterations`
 * times, run by the real `ribosome run --headless --scripted-provider` process with autostart. The
 * time between codon starts (from the events' own timestamps) and the server's CPU time and RSS are
 * sampled per codon; the figure is the gap near the end over the gap near the start (target <= 1.3,
 * flat). The codon's agent is a stand-in `claude` that answers at once, so what is timed is the
 * engine, not an agent's start-up (LOOP_AGENT=builtin runs Ribosome's own agent on the scripted
 * provider instead: ~0.6 s more per codon).
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RibosomeClient } from '../src/core/client/index.ts';
import { killAll, startServer, tempDir } from '../test/helpers/server-process.ts';
import { median, round } from './stats.ts';

export type LongLoopResult = {
  iterations: number;
  agent: string;
  /** Median gap between codon starts around each sampled iteration (ms), the ratio of the last to the first. */
  gapMs: Record<string, number>;
  gapRatio: number;
  /** The server's CPU time per codon (ms) around each sampled iteration, and the ratio. */
  cpuMsPerCodon: Record<string, number>;
  cpuRatio: number;
  rssMb: Record<string, number>;
  /** The size of the last state.snapshot (bytes) and how many the run journaled. */
  lastSnapshotBytes: number;
  snapshots: number;
  totalSeconds: number;
};

type Envelope = { type: string; timestamp: string; data: unknown };

const FAKE_CLAUDE = `#!/bin/sh
cat >/dev/null
echo '{"type":"system","subtype":"init","session_id":"00000000-0000-4000-8000-000000000000"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"Done.","session_id":"00000000-0000-4000-8000-000000000000","total_cost_usd":0}'
`;

/** CPU time (user + system, ms) and RSS (MB) of a process, from /proc. */
function usage(pid: number): { cpuMs: number; rssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const rssPages = Number(fields[21]);
  return { cpuMs: ticks * 10, rssMb: round((rssPages * 4096) / 1024 / 1024, 1) };
}

export async function runLongLoop(
  options: { iterations?: number; agent?: 'fake' | 'builtin'; log?: (line: string) => void } = {},
): Promise<LongLoopResult> {
  const iterations = options.iterations ?? 300;
  const agent = options.agent ?? 'fake';
  const log = options.log ?? (() => {});
  const dir = tempDir('ribosome-bench-loop-');
  try {
    const fake = join(dir.path, 'claude');
    writeFileSync(fake, FAKE_CLAUDE);
    chmodSync(fake, 0o755);
    const plan = join(dir.path, 'plan.yaml');
    writeFileSync(
      plan,
      `name: long-loop\nagent: ${agent === 'fake' ? 'claude-code' : 'builtin'}\ncodons:\n  - loop: { id: again, iterations: ${iterations}, codons: [ { id: step, prompt: Say done. } ] }\n`,
    );
    const script = join(dir.path, 'script.yaml');
    writeFileSync(script, 'turns: []\nwhenExhausted: { content: [ { text: Done. } ] }\n');
    const began = performance.now();
    const server = await startServer(
      plan,
      join(dir.path, 'exec'),
      ['--scripted-provider', script, '--exit-when-done'],
      30_000,
      { RIBOSOME_CLAUDE_BIN: fake },
    );
    const pid = server.child.pid ?? -1;
    // History too: the first codons start before this client is connected.
    const client = await RibosomeClient.connect(server.url, { mode: 'readonly', sendPreviousEvents: true });
    // Start times by codon (its events' own timestamps), and the server's usage when each arrived live.
    const started = new Map<string, { at: number; cpuMs: number; rssMb: number; live: boolean }>();
    let lastSnapshotBytes = 0;
    let snapshots = 0;
    const seen = (event: Envelope, live: boolean) => {
      if (event.type === 'state.snapshot') {
        snapshots++;
        lastSnapshotBytes = JSON.stringify(event).length;
      }
      const codonId = (event.data as { codonId?: string }).codonId;
      if (event.type !== 'codon.started' || codonId === undefined || started.has(codonId)) return;
      const at = Date.parse(event.timestamp);
      // Sent as history, or late: its CPU sample says nothing about its codon.
      const now = live && Date.now() - at < 200;
      let sample = { cpuMs: Number.NaN, rssMb: Number.NaN };
      try {
        sample = usage(pid);
      } catch {
        // The server has ended.
      }
      started.set(codonId, { at, ...sample, live: now });
      if (started.size % 50 === 0) log(`  ${started.size}/${iterations} codons`);
    };
    for (const event of client.handshake.eventHistory) seen(event, false);
    await new Promise<void>((resolve, reject) => {
      const off = client.onEvent((event) => {
        seen(event, true);
        if (started.size < iterations) return;
        off();
        resolve();
      });
      // The last frames may still be on their way when the process has ended.
      void server.exited
        .then((exit) => new Promise((r) => setTimeout(r, 2_000)).then(() => exit))
        .then((exit) =>
          reject(
            new Error(`server ended (${exit.code}) after ${started.size} of ${iterations} codon starts`),
          ),
        );
    });
    await server.exited;
    await client.close();
    const totalSeconds = round((performance.now() - began) / 1000, 1);

    // Around iteration i: the median over the 10 codons up to it.
    const points = [10, 100, 200, 300].filter((i) => i < iterations);
    points.push(iterations);
    const window = (i: number) => Array.from({ length: 10 }, (_, j) => i - 9 + j).filter((k) => k >= 1);
    const samples = [...started.values()].sort((a, b) => a.at - b.at);
    const gap = (k: number) => (samples[k - 1]?.at ?? Number.NaN) - (samples[k - 2]?.at ?? Number.NaN);
    // CPU time between the starts of codons i-10 and i (clock ticks: a mean, not a median), both seen live.
    const cpu = (i: number) => {
      const [a, b] = [samples[i - 11], samples[i - 1]];
      return a?.live && b?.live ? (b.cpuMs - a.cpuMs) / 10 : Number.NaN;
    };
    // CPU is sampled from the first start this client saw live: the first window begins there.
    const firstLive = samples.findIndex((s) => s.live) + 1;
    const gapMs: Record<string, number> = {};
    const cpuMsPerCodon: Record<string, number> = {};
    const rssMb: Record<string, number> = {};
    for (const i of points) {
      gapMs[i] = round(median(window(Math.max(i, 11)).map(gap).filter(Number.isFinite)));
      cpuMsPerCodon[i] = round(cpu(i === points[0] ? Math.max(i, firstLive + 10) : i));
      rssMb[i] = samples[i - 1]?.rssMb ?? Number.NaN;
    }
    const first = points[0] as number;
    const last = points.at(-1) as number;
    return {
      iterations,
      agent,
      gapMs,
      gapRatio: round((gapMs[last] ?? Number.NaN) / (gapMs[first] ?? Number.NaN)),
      cpuMsPerCodon,
      cpuRatio: round((cpuMsPerCodon[last] ?? Number.NaN) / (cpuMsPerCodon[first] ?? Number.NaN)),
      rssMb,
      lastSnapshotBytes,
      snapshots,
      totalSeconds,
    };
  } finally {
    killAll();
    dir.remove();
  }
}
