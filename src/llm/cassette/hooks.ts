/**
 * What the proxy asks of a cassette for each request it is about to send (issue 31): forward it (and
 * record the answer, when recording), answer it from the cassette (replay), or refuse it (a replay
 * miss). The forwarder calls `exchange` after middleware and the budget check, on the bytes that
 * would go out.
 */
import type { Readable } from 'node:stream';
import type { Caller } from './caller.ts';
import type { ExchangeTap } from './writer.ts';

/** An answer made on this machine: status, headers and a body that streams as recorded. */
export type LocalAnswer = { statusCode: number; headers: Record<string, string>; body: Readable };

export type CassetteStep =
  | { kind: 'forward'; tap?: ExchangeTap }
  | { kind: 'answer'; answer: LocalAnswer }
  /** A replay miss: the agent gets a final 400 with this message (the proxy's REPLAY_MISS). */
  | { kind: 'refuse'; message: string };

export type CassetteHooks = {
  exchange(request: { caller?: Caller | undefined; method: string; url: string; body: Buffer }): CassetteStep;
};
