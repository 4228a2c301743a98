/**
 * One storage fault against a running server, and what must follow: while the fault lasts the
 * server keeps serving (ping answered; a codon the fault broke says why) or goes down as documented
 * (fatal event, documented exit code, lock released, no stack trace); once the fault passes, the
 * server (or the next one, started on the same directory) runs a codon to its end, with nothing a
 * client received lost and state = journal fold = git.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT } from '../../../src/clients/cli/run.ts';
import type { Execution } from './execution.ts';
import type { ChaosContext } from './scenario.ts';
import { bounded, indent } from './server.ts';

export type StorageFault = {
  /** What the fault is, in the outcomes ("disk full", "database read-only"). */
  name: string;
  /** Words an event must use for a codon the fault broke. */
  cause: RegExp;
  inject: () => Promise<void>;
  release: () => Promise<void>;
};

/** The lock heartbeat's period (src/execution/layout/runtime-lock.ts) and a margin: a fault must outlive one. */
const HEARTBEAT_WINDOW_MS = 6_500;

export async function storageFault(
  ctx: ChaosContext,
  x: Execution,
  fault: StorageFault,
  when: 'while a codon runs' | 'before a codon starts',
): Promise<void> {
  const { tally } = ctx;
  if (!(await x.start({ autostart: false }))) return;
  if (!(await x.settle())) return;
  const life = x.life!;
  const client = x.client!;
  const codon = x.log.findLast((e) => e.type === 'server.idle')?.data;
  const next = codon && 'nextCodonId' in codon ? codon.nextCodonId : undefined;
  if (!next) return tally.fail(`${fault.name}: the server has no codon to start`);
  const completed = client.waitFor((e) => e.type === 'codon.completed', 45_000, 'codon.completed');
  completed.catch(() => {});
  if (when === 'while a codon runs') {
    x.behave(next, 'stuck');
    client.send('codon.next');
    const running = await client
      .waitFor(
        (e) => e.type === 'assistant.action' && e.data.toolName === 'Bash',
        30_000,
        'the agent at work',
      )
      .catch(() => undefined);
    if (!running) return tally.fail(`${fault.name}: codon ${next} did not reach its long command`);
  }
  await fault.inject();
  const injectedAt = Date.now();
  ctx.log(`${fault.name} ${when} (codon ${next})`);
  let refused: Promise<unknown> = new Promise(() => {});
  try {
    const id =
      when === 'while a codon runs'
        ? client.send('codon.forceStop', { reason: `chaos: ${fault.name}` })
        : client.send('codon.next');
    refused = client.waitFor((e) => e.type === 'error' && e.data.commandId === id, 45_000, 'a refusal');
    refused.catch(() => {});
  } catch {}
  // The codon ends, the command is refused or the server goes; the fault outlives a lock heartbeat.
  await Promise.race([completed, refused, life.exited]).catch(() => {});
  await bounded(life.exited, Math.max(0, injectedAt + HEARTBEAT_WINDOW_MS - Date.now()));
  ctx.log(`after the fault:\n${indent(x.recent())}\nstderr: ${life.stderr().slice(-1500)}`);
  const state = await x.verdictIfDown(0);
  if (state === 'alive') {
    const pong = await client
      .request('ping', undefined, 'pong', { timeoutMs: 10_000 })
      .then(() => true)
      .catch(() => false);
    if (!pong) tally.fail(`${fault.name}: the server is up but does not answer a ping`);
    x.checkStderr();
    const ended = x.received.findLast((e) => e.type === 'codon.completed');
    const failed = ended?.type === 'codon.completed' && !ended.data.success;
    const said = x.received.some(
      (e) =>
        (e.type === 'codon.completed' && fault.cause.test(e.data.failureReason?.message ?? '')) ||
        (e.type === 'error' && fault.cause.test(e.data.message)),
    );
    if (failed && !said)
      tally.fail(
        `${fault.name}: codon ${next} failed, and no event names the cause (${fault.cause}): ${
          ended?.type === 'codon.completed' ? ended.data.failureReason?.message : ''
        }`,
      );
    tally.fault(`${fault.name} ${when}: kept serving${failed ? ', the codon failed' : ''}`);
  } else {
    const exit = life.exit!;
    tally.fault(`${fault.name} ${when}: exited ${exit.code ?? exit.signal}`);
    // The exit code documented for a storage fault, once there is one; the fatal event names the cause.
    const documented = (EXIT as Record<string, number>).storageFailed;
    if (documented !== undefined && exit.code !== documented)
      tally.fail(
        `${fault.name}: exited with ${exit.code ?? exit.signal}, not the storage fault's code ${documented}`,
      );
    const fatal = x.received.find((e) => e.type === 'error' && e.data.severity === 'fatal');
    if (fatal?.type === 'error' && !fault.cause.test(fatal.data.message))
      tally.fail(
        `${fault.name}: the fatal event does not name the cause (${fault.cause}): ${fatal.data.message}`,
      );
    const left = readdirSync(join(x.exec, '.ribosome')).filter((f) => /^runtime\.lock/.test(f));
    if (left.length > 0) tally.fail(`${fault.name}: the server went down and left ${left.join(', ')}`);
  }
  await fault.release();
  // The fault has passed: the same server, or the next one, runs a codon to its end.
  if (state === 'exited' && !(await x.start({ autostart: false }))) return;
  if (!(await x.settle(30_000))) return;
  const done = x.client!.waitFor(
    (e) => e.type === 'codon.completed' && e.data.success,
    60_000,
    'a successful codon',
  );
  x.client!.send('codon.next');
  if (!(await done.then(() => true).catch(() => false)))
    tally.fail(`${fault.name}: once the fault passed, codon.next did not run a codon to its end`);
  if (await x.settle()) await x.quietChecks(`${fault.name}: after the fault passed`);
  if (await x.shutdown()) x.storeChecks(`${fault.name}: after the last shutdown`);
}
