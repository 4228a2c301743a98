/**
 * Cross-site WebSocket hijacking: pages of other local servers (any loopback name and port, a
 * sandboxed page's `null`) open the control WebSocket, some with a forged or borrowed dashboard
 * ticket. Each upgrade must be refused with HTTP 403 before any frame can be sent, and the server
 * keeps serving its own clients.
 */
import type { Socket } from 'node:net';
import { Execution } from './lib/execution.ts';
import { upgrade } from './lib/raw-ws.ts';
import type { Scenario } from './lib/scenario.ts';

/** Origins a page of another local server has: loopback names, any port, never the dashboard's. */
export function foreignOrigins(random: () => number, count: number): string[] {
  const names = ['127.0.0.1', 'localhost', '[::1]', '127.0.1.1', '127.3.4.5'];
  return Array.from({ length: count }, (_, n) => {
    if (n % 17 === 16) return 'null';
    const name = names[Math.floor(random() * names.length)] ?? '127.0.0.1';
    const port = 1024 + Math.floor(random() * 64_000);
    return `${random() < 0.8 ? 'http' : 'https'}://${name}:${port}`;
  });
}

/** A ticket-shaped subprotocol no server made: it must open nothing. */
function forgedTicket(random: () => number, origin: string): string {
  const payload = Buffer.from(JSON.stringify({ o: origin, m: 'readandwrite', e: 9e15 })).toString(
    'base64url',
  );
  const mac = Buffer.from(Array.from({ length: 32 }, () => Math.floor(random() * 256))).toString('base64url');
  return `Sec-WebSocket-Protocol: ribosome, ribosome-ticket.${payload}.${mac}`;
}

export const crossSite: Scenario = {
  name: 'cross-site',
  summary:
    'WebSockets opened by pages of other local servers (foreign loopback origins, forged tickets): HTTP 403, the server carries on',
  async run(ctx) {
    do {
      const x = await Execution.create(ctx.tally, { codons: ['one'] });
      ctx.defer(() => x.dispose());
      if (!(await x.start({ autostart: false })) || !(await x.settle())) return;
      const port = x.life!.port;
      const sockets: Socket[] = [];
      ctx.defer(() => {
        for (const s of sockets) s.destroy();
      });
      const origins = foreignOrigins(ctx.random, ctx.short ? 40 : 100 + Math.floor(ctx.random() * 300));
      let opened = 0;
      for (const origin of origins) {
        const headers = [`Origin: ${origin}`];
        if (ctx.random() < 0.5) headers.push(forgedTicket(ctx.random, origin));
        const answer = await upgrade(port, headers).catch((e: Error) => e);
        if (answer instanceof Error) {
          ctx.tally.fail(`cross-site: an upgrade from ${origin} got no answer (${answer.message})`);
          continue;
        }
        sockets.push(answer.socket);
        if (answer.status !== 403) {
          opened += answer.status === 101 ? 1 : 0;
          ctx.tally.fail(`cross-site: an upgrade from ${origin} got HTTP ${answer.status}, not 403`);
        }
        answer.socket.destroy();
      }
      ctx.log(`${origins.length} upgrades from foreign origins: ${opened} opened`);
      ctx.tally.fault(opened === 0 ? 'cross-site upgrade: 403' : 'cross-site upgrade: OPENED');
      const pong = await x
        .client!.request('ping', undefined, 'pong', { timeoutMs: 15_000 })
        .then(() => true)
        .catch(() => false);
      if (!pong) ctx.tally.fail('cross-site: the connected client got no pong after the refusals');
      x.checkStderr();
      if (await x.shutdown()) x.storeChecks('cross-site: after the refusals');
      await x.dispose();
    } while (!ctx.short && Date.now() < ctx.deadline);
  },
};
