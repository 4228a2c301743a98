/**
 * The proxy's cassette hooks of a replay (docs/testing-plans.md): each request answered from the
 * cassette, as fast as the agent reads or at the recorded pace; a miss refused with the reason, or
 * forwarded to the live provider and recorded into the replay's own cassette (`--on-miss live`).
 * Sentinels may ask the live provider instead (`--sentinels live`).
 */
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SecretRedactor } from '../../platform/credentials/secret-redactor.ts';
import type { Caller } from './caller.ts';
import { canonicalRequest, fingerprintOf, type Placeholders } from './fingerprint.ts';
import type { CassetteHooks, LocalAnswer } from './hooks.ts';
import { createMatcher } from './match.ts';
import { requestKey } from './request-key.ts';
import type { ExchangeLine } from './schema.ts';
import type { CassetteWriter } from './writer.ts';

export type ReplayOptions = {
  exchanges: readonly ExchangeLine[];
  /** The recording's paths (its header's), to fingerprint its requests again. */
  recordedPlaceholders?: Placeholders;
  placeholders: Placeholders;
  secrets?: SecretRedactor | undefined;
  /** [fail] `live`: a miss goes to the provider, and into `writer`. */
  onMiss?: 'fail' | 'live';
  /** [cassette] `live`: sentinels ask the provider (their answers go into `writer` too). */
  sentinels?: 'cassette' | 'live';
  /** [fast] `recorded`: each chunk when it came in the recording. */
  pace?: 'fast' | 'recorded';
  /** The replay's own cassette (with anything live): every exchange, replayed or live, as this run asked it. */
  writer?: CassetteWriter | undefined;
  /** Told of each miss refused (the server fails the codon with it). */
  onMissed?: (caller: Caller | undefined, message: string) => void;
};

/**
 * The recorded answer as a stream: all at once (its chunks joined, one write), or each chunk when it
 * came in the recording. A stream that was cut in the recording is cut again where it was.
 */
export function replayedAnswer(exchange: ExchangeLine, pace: 'fast' | 'recorded'): LocalAnswer {
  const cut = () => Object.assign(new Error('the recorded stream was cut here'), { code: 'UND_ERR_SOCKET' });
  async function* paced(): AsyncGenerator<Buffer> {
    let at = 0;
    for (const [ms, text] of exchange.chunks) {
      if (ms > at) await sleep(ms - at);
      at = Math.max(at, ms);
      yield Buffer.from(text);
    }
    if (exchange.end === 'cut') throw cut();
  }
  let body: Readable;
  if (pace === 'recorded') {
    body = Readable.from(paced(), { objectMode: false });
  } else {
    const whole = Buffer.from(exchange.chunks.map(([, text]) => text).join(''));
    body = new Readable({
      read() {
        if (whole.length > 0) this.push(whole);
        if (exchange.end === 'cut') this.destroy(cut());
        else this.push(null);
      },
    });
  }
  return { statusCode: exchange.status, headers: exchange.headers, body };
}

export function replayHooks(options: ReplayOptions): CassetteHooks {
  // Fingerprinted again: a cassette made before a rule of fingerprint.ts changed still matches.
  const matcher = createMatcher(
    options.exchanges.map((e) => {
      const request = canonicalRequest(e.request, options.recordedPlaceholders);
      return { ...e, request, fingerprint: fingerprintOf([e.method, e.path, request]) };
    }),
  );
  const { writer, onMiss = 'fail', sentinels = 'cassette', pace = 'fast' } = options;
  const keyed = { placeholders: options.placeholders, secrets: options.secrets };
  return {
    exchange({ caller, method, url, body }) {
      const key = requestKey(method, url, body, keyed);
      const live = () => ({
        kind: 'forward' as const,
        ...(writer ? { tap: writer.begin(caller, key) } : {}),
      });
      if (caller?.kind === 'sentinel' && sentinels === 'live') return live();
      // The canonical form is made only if the matcher reads it (a sentinel's shape, a miss).
      const found = matcher.match({
        ...(caller ? { caller } : {}),
        method: key.method,
        path: key.path,
        fingerprint: key.fingerprint,
        get request() {
          return key.request;
        },
      });
      if (found.kind === 'hit') {
        // With a cassette of its own, a replay keeps every exchange: it is a whole recording of this run.
        writer?.answered(caller, key, found.exchange);
        return { kind: 'answer', answer: replayedAnswer(found.exchange, pace) };
      }
      if (onMiss === 'live') return live();
      // The live request's text may hold a secret the server knows: the message goes to logs and stderr.
      const message =
        options.secrets && !options.secrets.empty ? options.secrets.text(found.message) : found.message;
      options.onMissed?.(caller, message);
      return { kind: 'refuse', message };
    },
  };
}
