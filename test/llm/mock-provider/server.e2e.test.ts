import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ScriptInput } from '../../../src/llm/mock-provider/script-schema.ts';
import { type MockProvider, startMockProvider } from '../../../src/llm/mock-provider/server.ts';
import { ApiErrorBodySchema } from '../../../src/llm/schemas.ts';

let provider: MockProvider | undefined;
afterEach(async () => {
  await provider?.stop();
  provider = undefined;
});

async function start(script: ScriptInput): Promise<MockProvider> {
  provider = await startMockProvider({ script });
  return provider;
}

const request = {
  model: 'claude-sonnet-4-5',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'hello' }],
};

function post(p: MockProvider, body: unknown, path = '/v1/messages', headers: Record<string, string> = {}) {
  return fetch(`${p.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('startMockProvider', () => {
  it('listens on loopback with a free port and refuses an invalid script at construction', async () => {
    const p = await start({});
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(p.port).toBeGreaterThan(0);
    await expect(
      startMockProvider({ script: { turns: [{ nope: true }] } as ScriptInput }),
    ).rejects.toMatchObject({
      code: 'SCRIPT_INVALID',
    });
  });

  it('answers plain JSON and SSE (with ?beta=true) from the script, recording each request', async () => {
    const p = await start({ turns: [{ content: [{ text: 'one' }] }, { content: [{ text: 'two' }] }] });
    const plain = await post(p, request, '/v1/messages', { 'x-caller': 'test' });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('request-id')).toMatch(/^req_/);
    expect(await plain.json()).toMatchObject({
      type: 'message',
      content: [{ type: 'text', text: 'one' }],
      stop_reason: 'end_turn',
    });

    const streamed = await post(p, { ...request, stream: true }, '/v1/messages?beta=true');
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    const text = await streamed.text();
    expect(text.startsWith('event: message_start\ndata: {')).toBe(true);
    expect(text).toContain('"text":"two"');
    expect(text.trimEnd().endsWith('data: {"type":"message_stop"}')).toBe(true);

    expect(p.requests.map((r) => [r.url, r.track, r.position])).toEqual([
      ['/v1/messages', 'default', 0],
      ['/v1/messages?beta=true', 'default', 1],
    ]);
    expect(p.requests[0]?.headers['x-caller']).toBe('test');
    expect(p.requests[1]?.body).toMatchObject({ stream: true, model: 'claude-sonnet-4-5' });
  });

  it('sends scripted errors with their status, Anthropic error body and retry-after', async () => {
    const p = await start({
      turns: [{ error: { status: 429, retryAfter: 3 } }, { error: { status: 529, message: 'busy' } }],
    });
    const limited = await post(p, request);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect(await limited.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    const overloaded = await post(p, request);
    expect(overloaded.status).toBe(529);
    expect(await overloaded.json()).toMatchObject({ error: { type: 'overloaded_error', message: 'busy' } });
  });

  it('rejects malformed requests with 400 invalid_request_error and does not consume turns', async () => {
    const p = await start({ turns: [{ content: [{ text: 'kept' }] }] });
    const cases: [unknown, string][] = [
      ['{not json', 'not valid JSON'],
      [{ model: 'm', messages: [] }, 'max_tokens: Field required'],
      [{ max_tokens: 5, messages: [] }, 'model: Field required'],
      [{ model: 'm', max_tokens: 5 }, 'messages: Field required'],
      [{ model: 'm', max_tokens: 5, messages: [{ role: 'robot', content: 'x' }] }, 'messages.0.role'],
    ];
    for (const [body, message] of cases) {
      const res = await post(p, body);
      expect(res.status).toBe(400);
      const json = ApiErrorBodySchema.parse(await res.json());
      expect(json.error.type).toBe('invalid_request_error');
      expect(json.error.message).toContain(message);
    }
    expect(await (await post(p, request)).json()).toMatchObject({ content: [{ text: 'kept' }] });
  });

  it('estimates tokens, and answers other paths with a helpful 404', async () => {
    const p = await start({});
    const counted = await post(
      p,
      { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(400) }] },
      '/v1/messages/count_tokens',
    );
    expect(counted.status).toBe(200);
    expect(z.object({ input_tokens: z.number() }).parse(await counted.json()).input_tokens).toBeGreaterThan(
      90,
    );

    const missing = await fetch(`${p.url}/v1/models`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      error: { type: 'not_found_error', message: expect.stringContaining('POST /v1/messages') },
    });
    expect((await fetch(`${p.url}/`)).status).toBe(200);
  });

  it('keeps stalled requests open until stop(), which ends them', async () => {
    const p = await start({
      turns: [{ stall: true }, { content: [{ text: 'late' }] }],
      whenExhausted: { stall: true },
    });
    const stalled = post(p, request).then(
      (res) => res.status,
      (err: unknown) => err,
    );
    const streaming = await post(p, { ...request, stream: true });
    await streaming.text();
    while (p.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await p.stop();
    expect(await stalled).toBeInstanceOf(Error);
  });

  it('goes silent mid-stream after stallAfterEvents events', async () => {
    const p = await start({ turns: [{ content: [{ text: 'never finished' }], stallAfterEvents: 2 }] });
    const res = await post(p, { ...request, stream: true });
    const reader = res.body!.getReader();
    let received = '';
    while (!received.includes('event: ping')) {
      const { value } = await reader.read();
      received += new TextDecoder().decode(value);
    }
    expect(received).toContain('event: message_start');
    const rest = reader.read().then(
      (chunk) => chunk.done,
      () => 'broken',
    );
    await p.stop();
    expect(await rest).not.toBe(false);
  });

  it('still answers after a scripted delay and chunk delays', async () => {
    const p = await start({
      defaults: { chunkDelayMs: 1 },
      turns: [{ content: [{ text: 'slow' }], delayMs: 20 }],
    });
    const res = await post(p, { ...request, stream: true });
    expect(await res.text()).toContain('"text":"slow"');
  });
});
