/**
 * Records LLM exchanges into a cassette (schema.ts) as they end: the I/O shell of recording. A
 * recording that goes on after a restart appends to its file, numbering on from what it holds, and
 * first cuts a line a crash left half-written.
 */
import { appendFileSync, existsSync, readFileSync, truncateSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { SecretRedactor } from '../../platform/credentials/secret-redactor.ts';
import { usageReader } from '../spend/response-usage.ts';
import { type Caller, callerKey } from './caller.ts';
import { parseCassette } from './read.ts';
import type { RequestKey } from './request-key.ts';
import type { ExchangeLine, HeaderLine, OutcomeLine } from './schema.ts';

/** Answer headers worth keeping: what a client reads. Never anything that could carry a credential. */
const KEPT_HEADERS = ['content-type', 'retry-after'];

/** One exchange being recorded, fed as its answer arrives. */
export type ExchangeTap = {
  head(status: number, headers: Record<string, string>): void;
  chunk(bytes: Buffer): void;
  end(how: ExchangeLine['end']): void;
};

export type CassetteWriter = {
  readonly path: string;
  begin(caller: Caller | undefined, key: RequestKey): ExchangeTap;
  /** Records an exchange a replay answered from another cassette (`answer`), as this run asked it. */
  answered(caller: Caller | undefined, key: RequestKey, answer: ExchangeLine): void;
};

/** Appends the outcome of the run that made the cassette at `path` (which must exist). */
export function appendOutcome(path: string, codons: OutcomeLine['codons'], now = Date.now): void {
  const line: OutcomeLine = { type: 'outcome', at: new Date(now()).toISOString(), codons };
  appendFileSync(path, `${JSON.stringify(line)}\n`);
}

export type CassetteWriterOptions = {
  path: string;
  header: Omit<HeaderLine, 'type' | 'version' | 'createdAt'>;
  secrets?: SecretRedactor | undefined;
  /** The attempt a codon's agent is on, when known. */
  attemptOf?: (caller: Caller) => number | undefined;
  /** A write that failed (the disk is full): the run goes on, the recording misses the exchange. */
  onError?: (error: unknown) => void;
  now?: () => number;
};

/** Keeps what an existing cassette holds whole; its counts. */
function resume(path: string): { seq: number; turns: Map<string, number> } {
  const turns = new Map<string, number>();
  const text = readFileSync(path, 'utf8');
  const whole = text.lastIndexOf('\n') + 1;
  if (whole < Buffer.byteLength(text)) truncateSync(path, Buffer.byteLength(text.slice(0, whole)));
  const { exchanges } = parseCassette(text.slice(0, whole), path);
  for (const e of exchanges)
    turns.set(callerKey(e.caller), Math.max(turns.get(callerKey(e.caller)) ?? 0, e.turn));
  return { seq: exchanges.at(-1)?.seq ?? 0, turns };
}

export function createCassetteWriter(options: CassetteWriterOptions): CassetteWriter {
  const { path, secrets } = options;
  const now = options.now ?? Date.now;
  const fail = options.onError ?? (() => {});
  let state = { seq: 0, turns: new Map<string, number>() };
  if (existsSync(path)) {
    state = resume(path);
  } else {
    const header: HeaderLine = {
      type: 'cassette',
      version: 1,
      createdAt: new Date(now()).toISOString(),
      ...options.header,
    };
    appendFileSync(path, `${JSON.stringify(header)}\n`);
  }
  const clean = (text: string) => (secrets && !secrets.empty ? secrets.text(text) : text);
  const write = (line: object) => {
    try {
      appendFileSync(path, `${JSON.stringify(line)}\n`);
    } catch (error) {
      fail(error);
    }
  };

  const numbered = (caller: Caller | undefined) => {
    const turn = (state.turns.get(callerKey(caller)) ?? 0) + 1;
    state.turns.set(callerKey(caller), turn);
    const attempt = caller?.kind === 'codon' ? options.attemptOf?.(caller) : undefined;
    return { turn, ...(attempt ? { attempt } : {}) };
  };
  const keyFields = (key: RequestKey) => ({
    method: key.method,
    path: key.path,
    ...(key.api ? { api: key.api } : {}),
    ...(key.model ? { model: key.model } : {}),
    fingerprint: key.fingerprint,
    request: key.request,
  });

  return {
    path,
    answered(caller, key, answer) {
      state.seq += 1;
      const { status, headers, headMs, chunks, end, usage } = answer;
      const line: ExchangeLine = {
        type: 'exchange',
        seq: state.seq,
        at: new Date(now()).toISOString(),
        ...(caller ? { caller } : {}),
        ...numbered(caller),
        ...keyFields(key),
        status,
        headers,
        headMs,
        chunks,
        end,
        ...(usage ? { usage } : {}),
      };
      write(line);
    },
    begin(caller, key) {
      const started = now();
      const { turn, attempt } = numbered(caller);
      let status = 0;
      let headMs = 0;
      const headers: Record<string, string> = {};
      const chunks: Array<[number, string]> = [];
      const decoder = new StringDecoder('utf8');
      let usage: ReturnType<typeof usageReader> | undefined;
      let ended = false;
      return {
        head(code, all) {
          status = code;
          headMs = now() - started;
          for (const name of KEPT_HEADERS) if (all[name] !== undefined) headers[name] = all[name];
          if (key.api) usage = usageReader(key.api, headers['content-type']);
        },
        chunk(bytes) {
          usage?.push(bytes);
          const text = decoder.write(bytes);
          if (text) chunks.push([now() - started, clean(text)]);
        },
        end(how) {
          if (ended) return;
          ended = true;
          // No answer came (the provider was never reached): nothing to replay.
          if (status === 0) return;
          const rest = decoder.end();
          if (rest) chunks.push([now() - started, clean(rest)]);
          const counted = how === 'complete' && status > 0 && status < 300 ? usage?.end() : undefined;
          state.seq += 1;
          const line: ExchangeLine = {
            type: 'exchange',
            seq: state.seq,
            at: new Date(started).toISOString(),
            ...(caller ? { caller } : {}),
            ...(attempt ? { attempt } : {}),
            turn,
            ...keyFields(key),
            status,
            headers,
            headMs,
            chunks,
            end: how,
            ...(counted ? { usage: counted } : {}),
          };
          write(line);
        },
      };
    },
  };
}
