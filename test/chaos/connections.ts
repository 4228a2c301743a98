/**
 * Too many connections: hundreds of WebSocket upgrades at once against a running server. Those
 * beyond its cap must be refused with HTTP 503 (before anything heavy is set up for them), the
 * server must stay up and keep answering the clients it has, and once they go, new clients are
 * welcome again.
 */
import type { Socket } from 'node:net';
import { RibosomeClient } from '../../src/core/client/index.ts';
import { Execution } from './lib/execution.ts';
import { CLOSED_BEFORE_ANSWER, type Upgraded, upgrade } from './lib/raw-ws.ts';
import type { Scenario } from './lib/scenario.ts';
import { DEFAULTS } from './lib/server.ts';

const CUT = 'closed unanswered';

export const connections: Scenario = {
  name: 'connections',
  summary:
    'hundreds of simultaneous WebSocket upgrades: beyond the cap HTTP 503, the server and its clients carry on',
  async run(ctx) {
    do {
      const x = await Execution.create(ctx.tally, { codons: ['one'] });
      ctx.defer(() => x.dispose());
      if (!(await x.start({ autostart: false })) || !(await x.settle())) return;
      const port = x.life!.port;
      const count = ctx.short ? 300 : 200 + Math.floor(ctx.random() * 600);
      const sockets: Socket[] = [];
      ctx.defer(() => {
        for (const s of sockets) s.destroy();
      });
      const results = await Promise.allSettled(
        Array.from({ length: count }, () =>
          upgrade(port).then((u: Upgraded) => {
            sockets.push(u.socket);
            return u;
          }),
        ),
      );
      const statuses = new Map<string, number>();
      for (const r of results) {
        const key =
          r.status === 'fulfilled'
            ? String(r.value.status)
            : (r.reason as Error).message === CLOSED_BEFORE_ANSWER
              ? CUT
              : `error (${(r.reason as Error).message})`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
      const summary = [...statuses].map(([k, n]) => `${n}× ${k}`).join(', ');
      ctx.log(`${count} upgrades: ${summary}`);
      // Beyond the cap: 503; beyond as many again still upgrading, closed at once (docs/protocol.md#the-control-protocol-in-practice).
      const refused = statuses.get('503') ?? 0;
      const cut = statuses.get(CUT) ?? 0;
      const accepted = statuses.get('101') ?? 0;
      const odd = [...statuses.keys()].filter((k) => k !== '101' && k !== '503' && k !== CUT);
      const cap = DEFAULTS.limits.maxClients;
      if (refused === 0)
        ctx.tally.fail(
          `connections: ${count} WebSocket upgrades at once, none refused with 503 (${summary})`,
        );
      if (cap !== undefined && accepted + 1 > cap)
        ctx.tally.fail(
          `connections: ${accepted} upgrades accepted besides the client there was, over the cap of ${cap}`,
        );
      if (odd.length > 0)
        ctx.tally.fail(
          `connections: upgrades answered other than 101, 503 or a close: ${odd.join(', ')} (${summary})`,
        );
      ctx.tally.fault(
        refused === 0
          ? 'connection flood: all accepted'
          : `connection flood: 503 beyond the cap${cut > 0 ? ', closed unanswered beyond twice the cap' : ''}`,
      );
      // The clients the server had are still served while the flood holds.
      const pong = await x
        .client!.request('ping', undefined, 'pong', { timeoutMs: 15_000 })
        .then(() => true)
        .catch(() => false);
      if (!pong) ctx.tally.fail('connections: a connected client got no pong during the flood');
      ctx.tally.rss(x.life!.memory()?.hwmKiB);
      for (const s of sockets.splice(0)) s.destroy();
      // Once they are gone, a new client is welcome (the server notices the closes at its pace).
      let welcome = false;
      for (let attempt = 0; attempt < 20 && !welcome; attempt++) {
        const client = await RibosomeClient.connect(x.life!.url, {
          mode: 'readonly',
          connectTimeoutMs: 5_000,
        }).catch(() => undefined);
        if (client) {
          welcome = true;
          await client.close();
        } else await new Promise((r) => setTimeout(r, 500));
      }
      if (!welcome) ctx.tally.fail('connections: after the flood, a new client could not connect');
      if (x.life?.exit) {
        await x.verdictIfDown(0);
        return;
      }
      x.checkStderr();
      if (await x.shutdown()) x.storeChecks('connections: after the flood');
      await x.dispose();
    } while (!ctx.short && Date.now() < ctx.deadline);
  },
};
