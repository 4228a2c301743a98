/**
 * Record and replay (docs/testing-plans.md), two measures in one run:
 * - serve: a replayed exchange, answered by the proxy from a cassette (with its LoggingMiddleware, as
 *   a run has it), against the same answer served by the scripted provider, which an offline run's
 *   agents call directly. The request is of a coding agent's size (a long system prompt, tools, a
 *   conversation: about 30 KB), the answer a streamed text and tool call. Sequential requests, the
 *   two sides alternating in short rounds; the ratio of medians (goal: at most 1.1).
 * - wall: the demo plan (three codons, the built-in agent, two sentinels) recorded with
 *   `ribosome run --record`, then replayed with `ribosome replay`, each as a whole process; the replay's
 *   wall time over the recording's, medians of REPLAY_BENCH_RUNS (default 3) each.
 * `npm run bench -- replay`; writes bench/results/replay.json.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Pool } from 'undici';
import { readCassette } from '../src/llm/cassette/read.ts';
import { recordHooks } from '../src/llm/cassette/record-hooks.ts';
import { replayHooks } from '../src/llm/cassette/replay-hooks.ts';
import { createCassetteWriter } from '../src/llm/cassette/writer.ts';
import { startMockProvider } from '../src/llm/mock-provider/server.ts';
import { createLoggingMiddleware } from '../src/llm/proxy/middleware/logging.ts';
import { ProxyRunner } from '../src/llm/proxy/runner.ts';
import { isMain, median, round } from './stats.ts';

const HERE = import.meta.dirname;
const ROOT = join(HERE, '..');
const BIN = join(ROOT, 'bin/ribosome');

const ROUNDS = 20;
const PER_ROUND = 50;
const WARMUP = 100;

/** A request of a coding agent's size: system prompt, ten tools, a few turns of conversation. */
function agentRequest(): string {
  const words = (n: number, seed: string) =>
    Array.from({ length: n }, (_, i) => `${seed}${i % 97}`).join(' ');
  const tools = Array.from({ length: 10 }, (_, i) => ({
    name: `Tool${i}`,
    description: words(200, 'describe'),
    input_schema: {
      type: 'object',
      properties: { path: { type: 'string', description: words(40, 'path') }, text: { type: 'string' } },
      required: ['path'],
    },
  }));
  return JSON.stringify({
    model: 'claude-sonnet-4-5',
    max_tokens: 8192,
    stream: true,
    system: [{ type: 'text', text: words(1200, 'rule'), cache_control: { type: 'ephemeral' } }],
    tools,
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Create hello.txt with a friendly greeting.' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_bench0001', name: 'Tool1', input: { path: 'hello.txt' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_bench0001', content: words(300, 'output') }],
      },
    ],
  });
}

const TURN = {
  content: [
    { text: 'I will write the file now, then check what it holds. '.repeat(8) },
    { tool_use: { name: 'Write', input: { file_path: 'hello.txt', content: 'Hello!\n'.repeat(40) } } },
  ],
};

/** Time of one whole exchange: request sent, every byte of the answer read. */
async function exchange(pool: Pool, path: string, body: string): Promise<number> {
  const start = performance.now();
  const answer = await pool.request({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json', 'x-api-key': 'bench' },
    body,
  });
  await answer.body.arrayBuffer();
  if (answer.statusCode !== 200) throw new Error(`status ${answer.statusCode} on ${path}`);
  return performance.now() - start;
}

async function serve(dir: string) {
  const body = agentRequest();
  const provider = await startMockProvider({ script: { turns: [], whenExhausted: TURN } });
  const logger = pino({ level: 'info' }, pino.destination({ dest: join(dir, 'proxy.log'), sync: false }));
  // Record one exchange through a recording proxy, as `ribosome run --record` does.
  const cassetteFile = join(dir, 'cassette.jsonl');
  const placeholders = { agentRoot: join(dir, 'agentRoot'), execution: dir };
  const writer = createCassetteWriter({
    path: cassetteFile,
    header: { plan: { name: 'bench', path: 'bench.yaml' } },
  });
  const recorder = new ProxyRunner({
    mode: 'passthrough',
    port: 0,
    targetUrl: provider.url,
    logger,
    idleTimeoutMs: 0,
    middleware: [createLoggingMiddleware(logger)],
    cassette: recordHooks(writer, { placeholders }),
  });
  const recordUrl = await recorder.start();
  const recordPool = new Pool(recordUrl);
  await exchange(recordPool, '/c/codon.bench/v1/messages', body);
  await recordPool.close();
  await recorder.stop();
  const { exchanges } = readCassette(cassetteFile).cassette;

  const replayer = new ProxyRunner({
    mode: 'passthrough',
    port: 0,
    targetUrl: 'http://127.0.0.1:9',
    logger,
    idleTimeoutMs: 0,
    middleware: [createLoggingMiddleware(logger)],
    cassette: replayHooks({ exchanges, placeholders, recordedPlaceholders: placeholders }),
  });
  const replayUrl = await replayer.start();
  const sides = {
    scripted: { pool: new Pool(provider.url), path: '/v1/messages' },
    replayed: { pool: new Pool(replayUrl), path: '/c/codon.bench/v1/messages' },
  };
  try {
    for (const side of Object.values(sides))
      for (let i = 0; i < WARMUP; i++) await exchange(side.pool, side.path, body);
    const times = { scripted: [] as number[], replayed: [] as number[] };
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order =
        round % 2 === 0 ? (['scripted', 'replayed'] as const) : (['replayed', 'scripted'] as const);
      const medians: Record<string, number> = {};
      for (const name of order) {
        const side = sides[name];
        const own: number[] = [];
        for (let i = 0; i < PER_ROUND; i++) own.push(await exchange(side.pool, side.path, body));
        times[name].push(...own);
        medians[name] = median(own);
      }
      ratios.push((medians.replayed ?? 0) / (medians.scripted ?? 1));
    }
    return {
      requestBytes: Buffer.byteLength(body),
      answerChunks: exchanges[0]?.chunks.length,
      scriptedMedianMs: round(median(times.scripted), 3),
      replayedMedianMs: round(median(times.replayed), 3),
      ratioOfMedians: round(median(times.replayed) / median(times.scripted), 3),
      medianOfRoundRatios: round(median(ratios), 3),
    };
  } finally {
    for (const side of Object.values(sides)) await side.pool.close();
    await replayer.stop();
    await provider.stop();
    logger.flush();
  }
}

/** Runs `ribosome ARGS` to its end; its wall time in ms. */
function timed(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(BIN, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env } });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.once('exit', (code) =>
      code === 0
        ? resolve(performance.now() - start)
        : reject(new Error(`ribosome ${args[0]} exited ${code}: ${err}`)),
    );
  });
}

async function wall(dir: string, runs: number) {
  if (runs === 0) return { runs, recordedMedianMs: 0, replayedMedianMs: 0, ratio: 0 };
  const plan = join(ROOT, 'examples/demo/plan.yaml');
  const script = join(ROOT, 'examples/scripts/demo.yaml');
  const recorded: number[] = [];
  const replayed: number[] = [];
  for (let i = 0; i < runs; i++) {
    const rec = join(dir, `recorded-${i}`);
    const common = ['--headless', '--exit-when-done'];
    recorded.push(
      await timed(['run', plan, '--record', '--scripted-provider', script, '--execution', rec, ...common]),
    );
    replayed.push(await timed(['replay', rec, '--execution', join(dir, `replayed-${i}`), ...common]));
  }
  return {
    runs,
    recordedMedianMs: Math.round(median(recorded)),
    replayedMedianMs: Math.round(median(replayed)),
    ratio: round(median(replayed) / median(recorded), 3),
  };
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-bench-replay-'));
  try {
    const served = await serve(dir);
    console.log(
      `serve: a ${served.requestBytes}-byte request, ${served.answerChunks} chunks: scripted provider ${served.scriptedMedianMs} ms, replayed by the proxy ${served.replayedMedianMs} ms: x${served.ratioOfMedians} (median of round ratios x${served.medianOfRoundRatios}; goal at most 1.1)`,
    );
    // REPLAY_BENCH_RUNS=0: the serve part alone (for a profile of it).
    const walls = await wall(dir, Number(process.env.REPLAY_BENCH_RUNS ?? 3));
    console.log(
      `wall: the demo plan recorded in ${walls.recordedMedianMs} ms, replayed in ${walls.replayedMedianMs} ms: x${walls.ratio} (medians of ${walls.runs})`,
    );
    const result = { serve: served, wall: walls };
    mkdirSync(join(HERE, 'results'), { recursive: true });
    writeFileSync(join(HERE, 'results', 'replay.json'), `${JSON.stringify(result, null, 2)}\n`);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await run();
