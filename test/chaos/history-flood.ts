/**
 * A history.sync flood: one readonly client sends hundreds of history.sync frames in one burst on a
 * journal of several MiB. The server may answer or refuse them (or coalesce them) as it documents,
 * but its RSS must stay under the campaign's bound, its other clients must keep getting answers,
 * and afterwards a plain history.sync still returns the whole journal.
 */
import { WebSocket } from 'ws';
import { Execution } from './lib/execution.ts';
import type { Scenario } from './lib/scenario.ts';
import { seedJournal } from './lib/seed.ts';
import { RSS_BOUND_MIB, until, watchMemory } from './lib/server.ts';

const MiB = 1024 * 1024;

export const historyFlood: Scenario = {
  name: 'history-flood',
  summary: `a burst of history.sync frames on a journal of several MiB: others answered, RSS under ${RSS_BOUND_MIB} MiB`,
  async run(ctx) {
    do {
      const x = await Execution.create(ctx.tally, { codons: ['one'] });
      ctx.defer(() => x.dispose());
      const seeded = seedJournal(x.exec, (ctx.short ? 4 : 4 + Math.floor(ctx.random() * 8)) * MiB);
      if (!(await x.start({ autostart: false })) || !(await x.settle())) return;
      const burst = ctx.short ? 300 : 300 + Math.floor(ctx.random() * 3000);
      const memory = watchMemory(x.life!.pid);
      ctx.defer(() => memory.stop());

      const flooder = new WebSocket(x.life!.url, { perMessageDeflate: false, maxPayload: 256 * MiB });
      ctx.defer(() => flooder.terminate());
      let completed = 0;
      let refused = 0;
      let lastMessageAt = Date.now();
      let closed: number | undefined;
      flooder.on('error', () => {});
      flooder.on('close', (code) => {
        closed = code;
      });
      await new Promise<void>((resolve, reject) => {
        flooder.once('error', reject);
        flooder.on('message', (data: Buffer) => {
          lastMessageAt = Date.now();
          // Only the envelope's type and two small fields matter; batches are not parsed whole.
          const head = data.subarray(0, 200).toString();
          if (head.includes('"type":"server.ready"')) resolve();
          else if (
            head.includes('"type":"history.batch"') &&
            data.subarray(-40).toString().includes('"hasMore":false')
          )
            completed += 1;
          else if (head.includes('"type":"error"') && /"commandId":"h\d+"/.test(data.toString()))
            refused += 1;
        });
        flooder.once('open', () =>
          flooder.send(JSON.stringify({ type: 'handshake', data: { mode: 'readonly' } })),
        );
      });
      for (let i = 0; i < burst; i++) flooder.send(JSON.stringify({ id: `h${i}`, type: 'history.sync' }));

      // Meanwhile another client keeps asking; every question must get its answer.
      let pings = 0;
      let unanswered = 0;
      let slowest = 0;
      let flooding = true;
      const pinger = (async () => {
        while (flooding) {
          const t0 = Date.now();
          const ok = await x
            .client!.request('ping', undefined, 'pong', { timeoutMs: 30_000 })
            .then(() => true)
            .catch(() => false);
          pings += 1;
          if (!ok) unanswered += 1;
          slowest = Math.max(slowest, Date.now() - t0);
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      // Until every frame is answered or refused (or the server is quiet on it: coalesced), the
      // memory bound is crossed, or the flooder is cut off.
      await until(
        () =>
          completed + refused >= burst ||
          Date.now() - lastMessageAt > 3_000 ||
          memory.overBound() ||
          closed !== undefined ||
          x.life?.exit !== undefined,
        180_000,
      );
      flooding = false;
      await pinger;
      const peak = memory.peakKiB();
      memory.stop();
      flooder.terminate();
      ctx.tally.rss(peak);
      const how = `${burst} history.sync: ${completed} answered, ${refused} refused${closed !== undefined ? `, closed ${closed}` : ''}; peak RSS ${(peak / 1024).toFixed(0)} MiB; slowest ping ${slowest} ms`;
      ctx.log(how);
      ctx.tally.fault(`history.sync flood: ${memory.overBound() ? 'RSS over the bound' : 'RSS bounded'}`);
      if (peak > RSS_BOUND_MIB * 1024)
        ctx.tally.fail(
          `history-flood: the server's RSS reached ${(peak / 1024).toFixed(0)} MiB, over ${RSS_BOUND_MIB} MiB (${how})`,
        );
      if (unanswered > 0)
        ctx.tally.fail(
          `history-flood: ${unanswered} of ${pings} pings from another client got no answer in 30 s`,
        );
      if (completed === 0 && closed === undefined && !x.life?.exit)
        ctx.tally.fail(`history-flood: not one of the ${burst} history.sync frames was answered (${how})`);
      if (x.life?.exit) {
        await x.verdictIfDown(0);
        return;
      }
      // Afterwards the journal still comes back whole.
      const history = await x.sync(60_000);
      const infos = history?.filter((e) => e.type === 'info' && e.id.startsWith('seed-')).length ?? 0;
      if (history && infos !== seeded)
        ctx.tally.fail(
          `history-flood: history.sync after the flood returned ${infos} of the ${seeded} seeded events`,
        );
      x.checkStderr();
      if (await x.shutdown()) x.storeChecks('history-flood: after the flood');
      await x.dispose();
    } while (!ctx.short && Date.now() < ctx.deadline);
  },
};
