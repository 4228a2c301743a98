/**
 * Slow and stalled clients: one client asks for the whole journal many times and never reads its
 * socket again; another reads in short sips; a third keeps the server broadcasting. The server's RSS
 * must stay under the campaign's bound (what it holds for a client that does not read is bounded),
 * and a client that reads normally keeps getting answers.
 */
import type { Socket } from 'node:net';
import { WebSocket } from 'ws';
import { Execution } from './lib/execution.ts';
import { FrameReader, frame, upgrade } from './lib/raw-ws.ts';
import type { Scenario } from './lib/scenario.ts';
import { seedJournal } from './lib/seed.ts';
import { RSS_BOUND_MIB, until, watchMemory } from './lib/server.ts';

const MiB = 1024 * 1024;

export const slowClients: Scenario = {
  name: 'slow-clients',
  summary: `a client that never reads and one that reads in sips, both asking for MiBs: RSS under ${RSS_BOUND_MIB} MiB, others answered`,
  async run(ctx) {
    do {
      const x = await Execution.create(ctx.tally, { codons: ['one'] });
      ctx.defer(() => x.dispose());
      seedJournal(x.exec, 4 * MiB);
      if (!(await x.start({ autostart: false })) || !(await x.settle())) return;
      const { url, port, pid } = x.life!;
      const memory = watchMemory(pid);
      ctx.defer(() => memory.stop());
      const syncs = ctx.short ? 60 : 60 + Math.floor(ctx.random() * 200);

      // The stalled client: a raw socket that handshakes, asks, and then is never read again.
      const stalled: Socket = (await upgrade(port)).socket;
      ctx.defer(() => stalled.destroy());
      stalled.pause();
      stalled.write(
        frame(JSON.stringify({ type: 'handshake', data: { mode: 'readonly', sendPreviousEvents: true } })),
      );
      for (let i = 0; i < syncs; i++)
        stalled.write(frame(JSON.stringify({ id: `s${i}`, type: 'history.sync' })));

      // The slow client: reads 20 ms in every 300.
      const slow = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * MiB });
      ctx.defer(() => slow.terminate());
      let slowDone = 0;
      let slowClosed: number | undefined;
      slow.on('error', () => {});
      slow.on('close', (code) => {
        slowClosed = code;
      });
      slow.on('message', (data: Buffer) => {
        // One sync at a time per client: the others may be refused (HISTORY_SYNC_IN_PROGRESS).
        if (
          data.subarray(0, 200).toString().includes('"type":"error"') &&
          /"commandId":"w\d"/.test(data.toString())
        )
          slowDone += 1;
        else if (
          data.subarray(0, 200).toString().includes('"history.batch"') &&
          data.subarray(-40).toString().includes('"hasMore":false')
        )
          slowDone += 1;
      });
      await new Promise<void>((resolve, reject) => {
        slow.once('open', () => resolve());
        slow.once('error', reject);
      });
      slow.send(JSON.stringify({ type: 'handshake', data: { mode: 'readonly' } }));
      for (let i = 0; i < 5; i++) slow.send(JSON.stringify({ id: `w${i}`, type: 'history.sync' }));
      const sips = setInterval(() => {
        const socket = (slow as unknown as { _socket?: Socket })._socket;
        socket?.pause();
        setTimeout(() => socket?.resume(), 20);
      }, 300);
      ctx.defer(() => clearInterval(sips));

      // The broadcaster and the reader that must be answered.
      let unanswered = 0;
      let pings = 0;
      const rounds = ctx.short ? 40 : 200;
      for (let i = 0; i < rounds && !memory.overBound() && !x.life?.exit; i++) {
        for (let b = 0; b < 50; b++) x.client!.send('ping.broadcast');
        const ok = await x
          .client!.request('ping', undefined, 'pong', {
            timeoutMs: 30_000,
            match: (e) => e.data.clientId === undefined,
          })
          .then(() => true)
          .catch(() => false);
        pings += 1;
        if (!ok) unanswered += 1;
      }
      // Give the slow reader its time to finish (or be dropped), watching memory meanwhile.
      await until(
        () => slowDone >= 5 || slowClosed !== undefined || memory.overBound() || x.life?.exit !== undefined,
        60_000,
      );
      clearInterval(sips);
      const peak = memory.peakKiB();
      memory.stop();
      ctx.tally.rss(peak);

      // What became of the stalled client: read what the server left for it.
      const reader = new FrameReader();
      let ended = false;
      stalled.on('data', (d: Buffer) => reader.push(d));
      stalled.on('close', () => {
        ended = true;
      });
      stalled.resume();
      await until(() => ended || reader.closeCode !== undefined, 5_000);
      const fate =
        reader.closeCode !== undefined ? `closed ${reader.closeCode}` : ended ? 'cut off' : 'still connected';
      const slowFate =
        slowClosed !== undefined ? `closed ${slowClosed}` : `${slowDone}/5 syncs answered or refused`;
      ctx.log(`stalled client: ${fate}; slow client: ${slowFate}; peak RSS ${(peak / 1024).toFixed(0)} MiB`);
      ctx.tally.fault(`stalled client: ${fate}`);
      ctx.tally.fault(
        `slow client: ${slowClosed !== undefined ? `closed ${slowClosed}` : slowDone >= 5 ? 'served' : 'unfinished'}`,
      );
      if (peak > RSS_BOUND_MIB * 1024)
        ctx.tally.fail(
          `slow-clients: the server's RSS reached ${(peak / 1024).toFixed(0)} MiB, over ${RSS_BOUND_MIB} MiB`,
        );
      if (unanswered > 0)
        ctx.tally.fail(
          `slow-clients: ${unanswered} of ${pings} pings of a reading client got no answer in 30 s`,
        );
      if (slowClosed === undefined && slowDone < 5 && !memory.overBound())
        ctx.tally.fail(
          `slow-clients: ${slowDone} of the slow reader's 5 history.sync were answered or refused in 60 s, and it was not closed`,
        );
      stalled.destroy();
      slow.terminate();
      if (x.life?.exit) {
        await x.verdictIfDown(0);
        return;
      }
      x.checkStderr();
      if (await x.shutdown()) x.storeChecks('slow-clients: afterwards');
      await x.dispose();
    } while (!ctx.short && Date.now() < ctx.deadline);
  },
};
