import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createMessagesClient } from '../../src/llm/messages-client.ts';
import type { ScriptInput } from '../../src/llm/mock-provider/script-schema.ts';
import { type MockProvider, startMockProvider } from '../../src/llm/mock-provider/server.ts';
import { parseRetryAfter } from '../../src/llm/retry-after.ts';
import type { MessagesRequest, StreamEvent } from '../../src/llm/schemas.ts';

let provider: MockProvider | undefined;
afterEach(async () => {
  await provider?.stop();
  provider = undefined;
});

async function start(script: ScriptInput): Promise<MockProvider> {
  provider = await startMockProvider({ script });
  return provider;
}

const request: MessagesRequest = {
  model: 'claude-haiku-4-5',
  max_tokens: 100,
  messages: [{ role: 'user', content: 'Say hi' }],
};

/** A fetch that answers with the given SSE text, to reach stream cases the scripted provider never sends. */
function sseFetch(body: string): typeof fetch {
  return async () =>
    new Response(body, {
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'request-id': 'req_fake' },
    });
}

const sse = (event: { type: string; [field: string]: unknown }) =>
  `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
const messageStart = sse({
  type: 'message_start',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [],
    stop_reason: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  },
});

describe('createMessagesClient', () => {
  it('creates a message without streaming, sending the expected headers', async () => {
    const p = await start({ turns: [{ content: [{ text: 'hi!' }] }] });
    const client = createMessagesClient({ baseUrl: `${p.url}/`, apiKey: 'sk-test', betas: ['b1', 'b2'] });
    const result = await client.create(request);
    expect(result).toMatchObject({
      ok: true,
      value: { message: { content: [{ type: 'text', text: 'hi!' }] } },
    });
    if (result.ok) expect(result.value.requestId).toMatch(/^req_/);
    const sent = p.requests[0];
    expect(sent?.headers).toMatchObject({
      'x-api-key': 'sk-test',
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'b1,b2',
    });
    expect(sent?.body).toMatchObject({ stream: false, model: 'claude-haiku-4-5' });
  });

  it('streams: every event in order, each block once complete, then the final message', async () => {
    const p = await start({
      turns: [
        {
          content: [
            { thinking: 'hmm' },
            { text: 'Writing it.' },
            { tool_use: { name: 'Write', input: { file_path: 'a', content: 'b' } } },
          ],
        },
      ],
    });
    const client = createMessagesClient({ baseUrl: p.url, authToken: 'tok' });
    const events: StreamEvent['type'][] = [];
    const blocks: string[] = [];
    const result = await client.stream(request, {
      onEvent: (event) => events.push(event.type),
      onBlock: (block, { index, requestId }) =>
        blocks.push(`${index}:${block.type}:${requestId?.slice(0, 4)}`),
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.message.stop_reason).toBe('tool_use');
    expect(result.value.message.content[2]).toMatchObject({
      type: 'tool_use',
      input: { file_path: 'a', content: 'b' },
    });
    expect(blocks).toEqual(['0:thinking:req_', '1:text:req_', '2:tool_use:req_']);
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
    expect(p.requests[0]?.headers.authorization).toBe('Bearer tok');
  });

  it('returns HTTP errors as values with status, error type and retry-after', async () => {
    const p = await start({ turns: [{ error: { status: 429, retryAfter: 2 } }, { error: { status: 500 } }] });
    const client = createMessagesClient({ baseUrl: p.url });
    expect(await client.stream(request)).toMatchObject({
      ok: false,
      error: {
        code: 'LLM_HTTP_ERROR',
        status: 429,
        errorType: 'rate_limit_error',
        retryAfterMs: 2000,
        retryable: true,
      },
    });
    expect(await client.create(request)).toMatchObject({
      ok: false,
      error: {
        code: 'LLM_HTTP_ERROR',
        status: 500,
        errorType: 'api_error',
        retryAfterMs: null,
        retryable: true,
      },
    });
    expect(await client.create({ ...request, model: '' })).toMatchObject({
      ok: false,
      error: { status: 400, errorType: 'invalid_request_error', retryable: false },
    });
  });

  it('times out a stalled call, and a stream silent for longer than the idle timeout', async () => {
    const p = await start({ turns: [{ stall: true }, { content: [{ text: 'cut' }], stallAfterEvents: 1 }] });
    const client = createMessagesClient({ baseUrl: p.url, idleTimeoutMs: 100 });
    expect(await client.create(request, { timeoutMs: 100 })).toMatchObject({
      ok: false,
      error: { code: 'LLM_TIMEOUT', retryable: true },
    });
    const idle = await client.stream(request);
    expect(idle).toMatchObject({ ok: false, error: { code: 'LLM_TIMEOUT' } });
    if (!idle.ok) expect(idle.error.message).toContain('silent');
  });

  it('stops when the caller aborts', async () => {
    const p = await start({ turns: [{ stall: true }] });
    const client = createMessagesClient({ baseUrl: p.url });
    const controller = new AbortController();
    const pending = client.stream(request, { signal: controller.signal });
    while (p.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, error: { code: 'LLM_ABORTED', retryable: false } });
    expect(await client.create(request, { signal: controller.signal })).toMatchObject({
      ok: false,
      error: { code: 'LLM_ABORTED' },
    });
  });

  it('reports an unreachable provider as a retryable network error', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    await new Promise((resolve) => server.close(resolve));
    const result = await createMessagesClient({ baseUrl: `http://127.0.0.1:${port}` }).create(request);
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'LLM_NETWORK_ERROR', status: null, retryable: true },
    });
  });

  it('maps an error event inside a stream to the status of its type', async () => {
    const client = createMessagesClient({
      fetch: sseFetch(
        `${messageStart}${sse({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}`,
      ),
    });
    expect(await client.stream(request)).toMatchObject({
      ok: false,
      error: {
        code: 'LLM_STREAM_ERROR',
        status: 529,
        errorType: 'overloaded_error',
        retryable: true,
        requestId: 'req_fake',
      },
    });
  });

  it('treats a stream cut before message_stop as retryable, and skips event types it does not know', async () => {
    const cut = createMessagesClient({ fetch: sseFetch(messageStart) });
    expect(await cut.stream(request)).toMatchObject({
      ok: false,
      error: { code: 'LLM_STREAM_ERROR', retryable: true },
    });

    const future = createMessagesClient({
      fetch: sseFetch(
        `${messageStart}${sse({ type: 'brand_new_event', x: 1 })}${sse({ type: 'message_stop' })}`,
      ),
    });
    expect(await future.stream(request)).toMatchObject({ ok: true, value: { message: { id: 'msg_1' } } });

    const broken = createMessagesClient({ fetch: sseFetch(`${messageStart}data: {oops\n\n`) });
    expect(await broken.stream(request)).toMatchObject({ ok: false, error: { code: 'LLM_STREAM_ERROR' } });
  });

  it('flags an invalid 2xx body', async () => {
    const client = createMessagesClient({ fetch: async () => Response.json({ hello: 'world' }) });
    expect(await client.create(request)).toMatchObject({
      ok: false,
      error: { code: 'LLM_INVALID_RESPONSE' },
    });
  });
});

describe('parseRetryAfter', () => {
  const headers = (values: Record<string, string>) => new Headers(values);
  it('reads retry-after-ms, seconds and HTTP dates', () => {
    expect(parseRetryAfter(headers({ 'retry-after-ms': '1500', 'retry-after': '9' }))).toBe(1500);
    expect(parseRetryAfter(headers({ 'retry-after': '2' }))).toBe(2000);
    expect(parseRetryAfter(headers({ 'retry-after': '0.5' }))).toBe(500);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)).toBe(30_000);
    expect(parseRetryAfter(headers({ 'retry-after': 'soon' }))).toBeNull();
    expect(parseRetryAfter(headers({}))).toBeNull();
  });
});
