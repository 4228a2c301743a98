/**
 * Out of file descriptors: the server runs under `ulimit -n 256` and plain TCP connections (never
 * upgraded) take every descriptor it has left while a codon starts, works and checkpoints. The
 * server must stay up; whatever failed for want of descriptors fails as an event that says so
 * (a codon's failureReason, an error event), never as a stack trace; once the connections close, a
 * codon runs to its end and the resume invariants hold.
 */
import { readdirSync } from 'node:fs';
import type { Socket } from 'node:net';
import { Execution } from './lib/execution.ts';
import { tcp } from './lib/raw-ws.ts';
import { pick, type Scenario } from './lib/scenario.ts';
import { pause } from './lib/server.ts';

/**
 * Low enough that idle connections exhaust it below the server's connection cap (it closes TCP
 * connections beyond twice `maxClients` at once, 128 by default, which would keep 256 from running out).
 */
const MAX_FILES = 128;
const CAUSE = /EMFILE|too many open files|file descriptors?/i;

/** How many descriptors a process holds open. */
function openFiles(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

export const emfile: Scenario = {
  name: 'emfile',
  summary: `ulimit -n ${MAX_FILES} and idle TCP connections taking every descriptor while a codon runs: the server carries on`,
  async run(ctx) {
    do {
      const x = await Execution.create(ctx.tally, { codons: ['one', 'two', 'three'] });
      ctx.defer(() => x.dispose());
      if (!(await x.start({ autostart: false, maxFiles: MAX_FILES })) || !(await x.settle())) return;
      const life = x.life!;
      const client = x.client!;
      const sockets: Socket[] = [];
      ctx.defer(() => {
        for (const s of sockets) s.destroy();
      });
      // The moment the descriptors run out: before the codon starts, or while its agent works.
      const when = ctx.short
        ? 'before the codon starts'
        : pick(ctx.random, ['before the codon starts', 'while the agent works']);
      const completed = client.waitFor((e) => e.type === 'codon.completed', 30_000, 'codon.completed');
      completed.catch(() => {});
      if (when === 'while the agent works') {
        client.send('codon.next');
        await pause(Math.floor(ctx.random() * 800));
      }
      // More than the limit: the server accepts until it has no descriptor left.
      for (let i = 0; i < MAX_FILES + 100; i++) {
        const socket = await tcp(life.port).catch(() => undefined);
        if (!socket) break;
        socket.on('error', () => {});
        sockets.push(socket);
      }
      const open = openFiles(life.pid);
      ctx.log(
        `${sockets.length} idle connections, the server holds ${open} descriptors of ${MAX_FILES}, ${when}`,
      );
      // The server may close connections beyond its cap at once: then descriptors never ran out.
      const exhausted = open >= MAX_FILES - 8;
      if (when === 'before the codon starts') client.send('codon.next');
      const ended = await Promise.race([completed, life.exited.then(() => undefined)]).catch(() => undefined);
      if (life.exit) {
        await x.verdictIfDown(0);
        ctx.tally.fault(`descriptors exhausted ${when}: exited ${life.exit.code ?? life.exit.signal}`);
        return;
      }
      const pong = await client
        .request('ping', undefined, 'pong', { timeoutMs: 15_000 })
        .then(() => true)
        .catch(() => false);
      if (!pong)
        ctx.tally.fail(
          'emfile: the server is up but its client got no pong while descriptors were exhausted',
        );
      const failed = ended?.type === 'codon.completed' && !ended.data.success;
      if (!ended)
        ctx.tally.fail('emfile: the codon did not end within 30 s while descriptors were exhausted');
      if (failed) {
        const said = x.received.some(
          (e) =>
            (e.type === 'codon.completed' && CAUSE.test(e.data.failureReason?.message ?? '')) ||
            (e.type === 'error' && CAUSE.test(e.data.message)),
        );
        if (!said)
          ctx.tally.fail(
            `emfile: the codon failed and no event names the cause (too many open files): ${
              ended?.type === 'codon.completed' ? ended.data.failureReason?.message : ''
            }`,
          );
      }
      x.checkStderr();
      ctx.tally.fault(
        exhausted
          ? `descriptors exhausted ${when}: kept serving, the codon ${failed ? 'failed' : ended ? 'completed' : 'hung'}`
          : `descriptors not exhausted (${open} of ${MAX_FILES}): the connections were closed`,
      );
      ctx.tally.rss(life.memory()?.hwmKiB);
      for (const s of sockets.splice(0)) s.destroy();
      // Descriptors are free again: a codon runs to its end.
      if (!(await x.settle(30_000))) return;
      const done = client.waitFor(
        (e) => e.type === 'codon.completed' && e.data.success,
        60_000,
        'a successful codon',
      );
      client.send('codon.next');
      if (!(await done.then(() => true).catch(() => false)))
        ctx.tally.fail('emfile: once the connections closed, codon.next did not run a codon to its end');
      if (await x.settle()) await x.quietChecks('emfile: after the connections closed');
      x.checkStderr();
      if (await x.shutdown()) x.storeChecks('emfile: after the last shutdown');
      await x.dispose();
    } while (!ctx.short && Date.now() < ctx.deadline);
  },
};
