import { RibosomeClient } from '../../core/client/ribosome-client.ts';
import type { ClientMode } from '../../core/protocol/index.ts';

/**
 * `ribosome web`'s tickets: asked of the server itself over the protocol (`dashboard.ticket`), as a
 * client without Origin and with the server's token when it has one, at each page's (re)connection.
 * So a server started (or restarted) after the dashboard is served the same; nothing is registered.
 */
export async function askTicket(
  url: string,
  options: { origin: string; mode: ClientMode; token: string | undefined },
): Promise<{ ok: true; ticket: string } | { ok: false; message: string }> {
  let client: RibosomeClient | undefined;
  try {
    client = await RibosomeClient.connect(url, {
      mode: options.mode,
      connectTimeoutMs: 10_000,
      keepEvents: 0,
      ...(options.token === undefined ? {} : { token: options.token }),
    });
    const answer = await client.request(
      'dashboard.ticket',
      { origin: options.origin, mode: options.mode },
      'dashboard.ticket',
      { timeoutMs: 10_000 },
    );
    return { ok: true, ticket: answer.data.ticket };
  } catch (error) {
    return { ok: false, message: `${url}: ${(error as Error).message}` };
  } finally {
    await client?.close();
  }
}
