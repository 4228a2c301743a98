import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CassetteError, parseCassette, readCassette } from '../../../src/llm/cassette/read.ts';
import { requestKey } from '../../../src/llm/cassette/request-key.ts';
import { createCassetteWriter } from '../../../src/llm/cassette/writer.ts';
import { SecretRedactor } from '../../../src/platform/credentials/secret-redactor.ts';
import { tempDir } from '../../helpers/server-process.ts';

const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

function place() {
  const dir = tempDir();
  dirs.push(dir);
  return join(dir.path, 'cassette.jsonl');
}

const body = (text: string) =>
  Buffer.from(
    JSON.stringify({ model: 'claude-sonnet-4-5', stream: true, messages: [{ role: 'user', content: text }] }),
  );

const SSE = [
  'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":12,"output_tokens":1}}}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":7}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n',
];

describe('the cassette file', () => {
  it('records an exchange as it streamed, with its usage, and reads back what it wrote', () => {
    const path = place();
    const writer = createCassetteWriter({ path, header: { plan: { name: 'p', path: '/plans/p.yaml' } } });
    const key = requestKey('POST', '/v1/messages?beta=true', body('hi'), { placeholders: {} });
    const tap = writer.begin({ kind: 'codon', id: 'build' }, key);
    tap.head(200, { 'content-type': 'text/event-stream', 'x-api-key': 'never', 'set-cookie': 'no' });
    // A character cut between two chunks is kept whole.
    const euro = Buffer.from('€');
    tap.chunk(Buffer.concat([Buffer.from(SSE[0] ?? ''), euro.subarray(0, 1)]));
    tap.chunk(Buffer.concat([euro.subarray(1), Buffer.from(SSE[1] ?? '')]));
    tap.end('complete');
    const { cassette } = readCassette(path);
    expect(cassette.header.plan).toEqual({ name: 'p', path: '/plans/p.yaml' });
    const [line] = cassette.exchanges;
    expect(line).toMatchObject({
      seq: 1,
      turn: 1,
      caller: { kind: 'codon', id: 'build' },
      path: '/v1/messages',
      api: 'anthropic',
      model: 'claude-sonnet-4-5',
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      end: 'complete',
      usage: { input_tokens: 12, output_tokens: 7 },
    });
    expect(line?.chunks.map(([, text]) => text).join('')).toBe(`${SSE[0]}€${SSE[1]}`);
  });

  it('keeps no secret the server knows, in the request or the answer', () => {
    const path = place();
    const secrets = new SecretRedactor();
    secrets.add('ANTHROPIC_API_KEY', 'sk-ant-planted-0123456789');
    const writer = createCassetteWriter({ path, header: { plan: { name: 'p', path: 'p.yaml' } }, secrets });
    const key = requestKey('POST', '/v1/messages', body('env printed sk-ant-planted-0123456789'), {
      placeholders: {},
      secrets,
    });
    const tap = writer.begin(undefined, key);
    tap.head(200, { 'content-type': 'application/json' });
    tap.chunk(Buffer.from('{"content":[{"type":"text","text":"your key is sk-ant-planted-0123456789"}]}'));
    tap.end('complete');
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('sk-ant-planted');
    expect(text).toContain('[redacted:ANTHROPIC_API_KEY]');
  });

  it('a recording that goes on after a crash cuts the half-written line and numbers on', () => {
    const path = place();
    const header = { plan: { name: 'p', path: 'p.yaml' } };
    const first = createCassetteWriter({ path, header });
    const tap = first.begin(
      { kind: 'codon', id: 'a' },
      requestKey('POST', '/v1/messages', body('1'), { placeholders: {} }),
    );
    tap.head(200, {});
    tap.end('complete');
    appendFileSync(path, '{"type":"exchange","seq":2,"at":"');
    expect(parseCassette(readFileSync(path, 'utf8'), path).exchanges).toHaveLength(1);
    const second = createCassetteWriter({ path, header });
    const again = second.begin(
      { kind: 'codon', id: 'a' },
      requestKey('POST', '/v1/messages', body('2'), { placeholders: {} }),
    );
    again.head(200, {});
    again.end('complete');
    const { exchanges } = readCassette(path).cassette;
    expect(exchanges.map((e) => [e.seq, e.turn])).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  it('a file that is not a cassette is refused with its line', () => {
    const path = place();
    writeFileSync(
      path,
      '{"type":"cassette","version":1,"createdAt":"x","plan":{"name":"p","path":"p"}}\nnot json\n',
    );
    expect(() => readCassette(path)).toThrow(CassetteError);
    expect(() => readCassette(path)).toThrow(/cassette\.jsonl:2: not a JSON line/);
    expect(() => readCassette(join(path, '..', 'missing.jsonl'))).toThrow(
      /no cassette there; record one with `ribosome run --record`/,
    );
  });
});

describe('a replayed answer', () => {
  const exchange = {
    type: 'exchange' as const,
    seq: 1,
    at: '2026-11-30T00:00:00.000Z',
    turn: 1,
    method: 'POST',
    path: '/v1/messages',
    fingerprint: 'f',
    request: null,
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    headMs: 1,
    chunks: [
      [0, 'event: a\n\n'],
      [120, 'event: b\n\n'],
    ] as Array<[number, string]>,
    end: 'complete' as const,
  };
  const read = async (body: NodeJS.ReadableStream) => {
    const parts: string[] = [];
    for await (const chunk of body) parts.push(String(chunk));
    return parts;
  };

  it('comes whole at once by default, and chunk by chunk at the recorded pace with --pace recorded', async () => {
    const { replayedAnswer } = await import('../../../src/llm/cassette/replay-hooks.ts');
    expect(await read(replayedAnswer(exchange, 'fast').body)).toEqual(['event: a\n\nevent: b\n\n']);
    const start = performance.now();
    expect(await read(replayedAnswer(exchange, 'recorded').body)).toEqual(['event: a\n\n', 'event: b\n\n']);
    // The recorded pause between the chunks is kept (at least; a busy machine may add to it).
    expect(performance.now() - start).toBeGreaterThanOrEqual(110);
  });

  it('a stream cut in the recording is cut again where it was', async () => {
    const { replayedAnswer } = await import('../../../src/llm/cassette/replay-hooks.ts');
    for (const pace of ['fast', 'recorded'] as const) {
      const parts: string[] = [];
      const failed = read(replayedAnswer({ ...exchange, end: 'cut' }, pace).body).catch(
        (error: Error) => error,
      );
      const error = await failed;
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe('the recorded stream was cut here');
      expect(parts).toEqual([]);
    }
  });
});
