import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NotifyPayload } from '../../../src/host/notify/notices.ts';

export type Received = { url: string; headers: IncomingHttpHeaders; body: NotifyPayload };

/**
 * A webhook receiver on 127.0.0.1 (port 0): records every POST and answers with the next status of
 * `statuses` (the last one repeats; 200 when none). `hang` leaves requests unanswered.
 */
export async function startReceiver(options: { statuses?: number[]; hang?: boolean } = {}) {
  const statuses = [...(options.statuses ?? [200])];
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body: JSON.parse(text) as NotifyPayload });
      for (const wake of waiters.splice(0)) wake();
      if (options.hang) return;
      const status = statuses.length > 1 ? (statuses.shift() ?? 200) : (statuses[0] ?? 200);
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    received,
    /** Resolves once `count` requests have arrived (the test's own timeout bounds it). */
    async waitFor(count: number): Promise<Received[]> {
      while (received.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL on which nothing listens (a port taken, then freed): connections are refused. */
export async function downUrl(): Promise<string> {
  const r = await startReceiver();
  await r.close();
  return r.url;
}
