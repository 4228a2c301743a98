/**
 * Random SIGKILLs: `ribosome run` (autostart on or off, a sentinel on every codon) is killed at a
 * random moment, or just after a random kind of event (a codon starting, a transition, a rollback,
 * a sentinel call, a checkpoint), often right after a random command (next, redo, skip, forceStop,
 * a rollback); then started again. After every restart nothing a client received is lost; at quiet
 * points and at the end, state = journal fold = git and no agent outlives its codon or server.
 */
import type { CommandType } from '../../src/core/protocol/index.ts';
import type { KillPoint } from '../../src/platform/storage/kill-point.ts';
import type { Behaviour } from '../engine/model/model.ts';
import { Execution } from './lib/execution.ts';
import { type ChaosContext, pick, type Scenario } from './lib/scenario.ts';
import { pause } from './lib/server.ts';

const CODONS = ['one', 'two', 'three', 'four'] as const;

const KILL_AFTER = [
  'codon.started',
  'state.transition',
  'assistant.action',
  'tool.result',
  'codon.completed',
  'rollback.started',
  'rollback.completed',
  'sentinel.loaded',
  'sentinel.output',
  'server.idle',
] as const;

export const kills: Scenario = {
  name: 'kills',
  summary:
    'SIGKILL at random moments (codons, checkpoints, rollbacks, recoveries, sentinel calls; autostart on/off): nothing lost, state = fold = git, no orphans',
  async run(ctx) {
    do {
      const x = await Execution.create(ctx.tally, { codons: CODONS, sentinels: true });
      ctx.defer(() => x.dispose());
      await cycle(ctx, x, ctx.short ? 3 : 3 + Math.floor(ctx.random() * 6));
      await x.dispose();
    } while (!ctx.short && Date.now() < ctx.deadline);
  },
};

/**
 * Kill points a life can reach after it listens (src/platform/storage/kill-point.ts): a kill there lands between
 * a git or file step and its record, a window a few milliseconds wide that a timer seldom hits. Those
 * reached only while a server starts (a recovery, the first run's initial checkpoint, a workspace
 * clone) have tests of their own (test/engine/kill-points.e2e.test.ts).
 */
const PLANTED: readonly KillPoint[] = [
  'checkpoint:completed',
  'checkpoint:error',
  'checkpoint:skipped',
  'rollback-restored',
];

/**
 * Leads a life started with a planted kill point (and without autostart) to it: a codon that ends
 * (well, or with a provider error), a skip of a running codon, or a rollback. Returns what was sent.
 */
async function towardKillPoint(ctx: ChaosContext, x: Execution, point: KillPoint): Promise<string> {
  const client = x.client;
  if (!client) return 'no client';
  try {
    if (point === 'rollback-restored') {
      // Without autostart (a planted life has none) no codon runs: the rollback is taken.
      client.send('rollback.toCodon', {
        codonId: pick(ctx.random, CODONS),
        checkpointType: pick(ctx.random, ['start', 'end'] as const),
        autoRestart: ctx.random() < 0.5,
      });
      return 'rollback.toCodon';
    }
    const behaviour: Behaviour =
      point === 'checkpoint:error' ? '500' : point === 'checkpoint:skipped' ? 'stuck' : 'ok';
    for (const codon of CODONS) x.behave(codon, behaviour);
    client.send('codon.next');
    if (point !== 'checkpoint:skipped') return 'codon.next';
    await client.waitFor((e) => e.type === 'codon.started', 15_000, 'codon.started');
    client.send('codon.skip');
    return 'codon.next, codon.skip';
  } catch {
    return 'a command the server refused';
  }
}

async function cycle(ctx: ChaosContext, x: Execution, killCount: number): Promise<void> {
  for (let k = 0; k < killCount; k++) {
    for (const codon of CODONS) {
      if (ctx.random() < 0.3) x.behave(codon, pick<Behaviour>(ctx.random, ['stuck', 'stuck', '500', 'ok']));
    }
    const point = ctx.random() < 0.3 ? pick(ctx.random, PLANTED) : undefined;
    const planted = point && `${point}#1`;
    const autostart = !planted && ctx.random() < 0.7;
    if (!(await x.start({ autostart, ...(planted ? { env: { RIBOSOME_KILL_AT: planted } } : {}) }))) return;
    if (point && planted) {
      const command = await towardKillPoint(ctx, x, point);
      if (await x.diesAtKillPoint(planted, 15_000)) {
        ctx.log(`life ${x.lives}: ${command ?? 'no command'}, died at kill point ${planted}`);
        ctx.tally.fault('SIGKILL at a kill point (between a step and its record)');
        continue;
      }
    }
    // Now and then a quiet point first: the invariants must hold between crashes too.
    if (!planted && ctx.random() < 0.25) {
      if (await x.settle()) await x.quietChecks(`quiet point of life ${x.lives}`);
      if (x.life?.exit) return void (await x.verdictIfDown(0));
    }
    const command = randomCommand(ctx, x);
    const how = await killMoment(ctx, x);
    if (planted && x.life?.exit && (await x.diesAtKillPoint(planted, 0))) {
      ctx.tally.fault('SIGKILL at a kill point (between a step and its record)');
      continue;
    }
    if (x.life?.exit) {
      ctx.tally.fault('the server went down by itself');
      await x.verdictIfDown(0);
      return;
    }
    ctx.log(`life ${x.lives}: ${command ?? 'no command'}, killed ${how}`);
    await x.kill();
    ctx.tally.fault(`SIGKILL ${how.startsWith('after') ? 'after an event' : 'at a random time'}`);
  }
  if (!(await x.start({ autostart: false }))) return;
  ctx.log(`life ${x.lives}: the last`);
  if (await x.settle()) await x.quietChecks('after the last restart');
  ctx.log('settled and checked');
  if (await x.shutdown()) x.storeChecks('after the last shutdown');
  ctx.log('shut down and checked');
}

/** Sends one random command (or none); the kill may land while it is being carried out. */
function randomCommand(ctx: ChaosContext, x: Execution): string | undefined {
  const client = x.client;
  if (!client || ctx.random() < 0.4) return undefined;
  const codonId = pick(ctx.random, CODONS);
  const autoRestart = ctx.random() < 0.5;
  const choices: Array<[CommandType, () => void]> = [
    ['codon.next', () => client.send('codon.next')],
    ['codon.redo', () => client.send('codon.redo')],
    ['codon.skip', () => client.send('codon.skip')],
    ['codon.forceStop', () => client.send('codon.forceStop', { reason: 'chaos' })],
    [
      'rollback.toCodon',
      () =>
        client.send('rollback.toCodon', {
          codonId,
          checkpointType: pick(ctx.random, ['start', 'end', 'completed', 'error'] as const),
          autoRestart,
        }),
    ],
    ['rollback.toLastSuccess', () => client.send('rollback.toLastSuccess', { autoRestart })],
  ];
  const [type, send] = pick(ctx.random, choices);
  try {
    send();
  } catch {
    return undefined;
  }
  return type;
}

/** Waits for the moment to kill: a random time, or just after a random kind of event. */
async function killMoment(ctx: ChaosContext, x: Execution): Promise<string> {
  if (ctx.random() < 0.5) {
    const ms = Math.floor(ctx.random() ** 2 * 1500);
    await pause(ms);
    return `${ms} ms in`;
  }
  const type = pick(ctx.random, KILL_AFTER);
  const delay = Math.floor(ctx.random() * 30);
  const seen = await x.client
    ?.waitFor((e) => e.type === type, 3_000, type)
    .then(() => true)
    .catch(() => false);
  await pause(delay);
  return seen ? `after ${type} + ${delay} ms` : `3 s in (no ${type})`;
}
