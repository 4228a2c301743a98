import type { RibosomeClient } from '../../src/core/client/index.ts';
import type { EventType, ServerEventOf } from '../../src/core/protocol/index.ts';

/**
 * The first server.idle after an event of type `effect` (the command's own: codon.started,
 * rollback.completed). Listened for before the command is sent: a server started again may publish
 * its startup idle after a client connected, and a plain "next idle" would take that one.
 */
export function idleAfter(
  client: RibosomeClient,
  effect: EventType,
  timeoutMs = 60_000,
): Promise<ServerEventOf<'server.idle'>> {
  let seen = false;
  const off = client.onEvent((e) => {
    if (e.type === effect) seen = true;
  });
  const idle = client.waitFor(
    (e) => seen && e.type === 'server.idle',
    timeoutMs,
    `server.idle after ${effect}`,
  );
  idle.then(off, off);
  return idle as Promise<ServerEventOf<'server.idle'>>;
}
