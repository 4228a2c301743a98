import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createDoubleMaxTokensMiddleware } from '../../../src/llm/proxy/middleware/double-max-tokens.ts';
import { loadUserMiddleware } from '../../../src/llm/proxy/middleware/load-user-middleware.ts';
import { bodyPreview, createLoggingMiddleware } from '../../../src/llm/proxy/middleware/logging.ts';
import type { ExchangeContext, ProxyRequest } from '../../../src/llm/proxy/types.ts';
import { scanVendorSummary } from '../../../src/llm/proxy/vendor-summary.ts';
import { captureLogger } from './helpers/logs.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

function vendorRequest(maxTokens: number | undefined): ProxyRequest {
  return {
    method: 'POST',
    url: '/v1/messages',
    headers: {},
    vendorRequestData: {
      model: 'claude-sonnet-4-5',
      max_tokens: maxTokens,
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
      ],
    },
  };
}

function contextFor(request: ProxyRequest, rawBody = Buffer.alloc(0)): ExchangeContext {
  return { id: 7, rawBody, request };
}

describe('LoggingMiddleware', () => {
  it('logs a provider-format request with model, message count, max_tokens and stream, then the status', async () => {
    const { logger, lines } = captureLogger();
    const logging = createLoggingMiddleware(logger);
    const request = vendorRequest(512);
    const context = contextFor(request);
    expect(await logging.request?.(request, context)).toBe(request);
    await logging.response?.({ status: 201, headers: {} }, context);
    expect(lines).toEqual([
      expect.objectContaining({
        msg: '[LOGGING-MIDDLEWARE] request',
        exchange: 7,
        method: 'POST',
        url: '/v1/messages',
        model: 'claude-sonnet-4-5',
        messages: 2,
        max_tokens: 512,
        stream: false,
      }),
      expect.objectContaining({
        msg: '[LOGGING-MIDDLEWARE] response',
        method: 'POST',
        url: '/v1/messages',
        status: 201,
      }),
    ]);
  });

  it('logs other requests with their size and no body text by default', async () => {
    const { logger, lines } = captureLogger();
    const logging = createLoggingMiddleware(logger);
    const raw = Buffer.from('{"messages":[{"role":"user","content":"my private prompt"}]}');
    const request: ProxyRequest = { method: 'POST', url: '/v1/messages/count_tokens', headers: {} };
    await logging.request?.(request, contextFor(request, raw));
    expect(lines[0]).toMatchObject({ method: 'POST', url: '/v1/messages/count_tokens', bytes: raw.length });
    expect(lines[0]).not.toHaveProperty('body');
    expect(JSON.stringify(lines)).not.toContain('private prompt');
  });

  it('with logBodies, logs a truncated body, never the whole of a long one', async () => {
    const { logger, lines } = captureLogger();
    const logging = createLoggingMiddleware(logger, { logBodies: true, previewBytes: 16 });
    const raw = Buffer.from('x'.repeat(1000));
    const request: ProxyRequest = { method: 'PUT', url: '/v1/files?x=1', headers: {} };
    await logging.request?.(request, contextFor(request, raw));
    expect(lines[0]).toMatchObject({
      method: 'PUT',
      url: '/v1/files?x=1',
      body: `${'x'.repeat(16)}... (1000 bytes)`,
    });
    expect(lines[0]).not.toHaveProperty('model');
  });

  it('redacts credential-like query values in the URLs it logs, on request and response', async () => {
    const { logger, lines } = captureLogger();
    const logging = createLoggingMiddleware(logger);
    const request = { ...vendorRequest(8), url: '/v1/messages?beta=true&api_key=sk-ant-123&Token=t0k' };
    await logging.request?.(request, contextFor(request));
    await logging.response?.({ status: 200, headers: {} }, contextFor(request));
    for (const line of lines) {
      expect(line.url).toBe('/v1/messages?beta=true&api_key=[REDACTED]&Token=[REDACTED]');
    }
  });

  it('writes its lines as they read in the server log: fields in this order, absent ones left out', async () => {
    const text: string[] = [];
    const logger = pino({ base: null, timestamp: false }, { write: (line: string) => text.push(line) });
    const logging = createLoggingMiddleware(logger, { logBodies: true, previewBytes: 8 });
    // As the proxy hands it over: the summary of the agent's bytes, not the parse.
    const raw = Buffer.from(
      '{"model":"claude-sonnet-4-5","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hi"}]}',
    );
    const received: ProxyRequest = { method: 'POST', url: '/v1/messages?beta=true&key=k3y', headers: {} };
    const context = { id: 3, rawBody: raw, request: received, vendorSummary: () => scanVendorSummary(raw) };
    await logging.request?.(received, context);
    // Replaced by an earlier middleware: summed up from what it carries (no max_tokens here).
    const replaced = { ...vendorRequest(undefined), url: '/v1/messages' };
    await logging.request?.(replaced, context);
    const other: ProxyRequest = { method: 'GET', url: '/v1/models', headers: {} };
    await logging.request?.(other, contextFor(other, Buffer.from('0123456789')));
    await logging.request?.(other, contextFor(other));
    await logging.response?.({ status: 200, headers: {} }, context);
    expect(text).toEqual([
      '{"level":30,"exchange":3,"method":"POST","url":"/v1/messages?beta=true&key=[REDACTED]","model":"claude-sonnet-4-5","messages":1,"max_tokens":64,"stream":true,"msg":"[LOGGING-MIDDLEWARE] request"}\n',
      '{"level":30,"exchange":3,"method":"POST","url":"/v1/messages","model":"claude-sonnet-4-5","messages":2,"stream":false,"msg":"[LOGGING-MIDDLEWARE] request"}\n',
      '{"level":30,"exchange":7,"method":"GET","url":"/v1/models","bytes":10,"body":"01234567... (10 bytes)","msg":"[LOGGING-MIDDLEWARE] request"}\n',
      '{"level":30,"exchange":7,"method":"GET","url":"/v1/models","bytes":0,"msg":"[LOGGING-MIDDLEWARE] request"}\n',
      '{"level":30,"exchange":3,"method":"POST","url":"/v1/messages?beta=true&key=[REDACTED]","status":200,"msg":"[LOGGING-MIDDLEWARE] response"}\n',
    ]);
  });

  it('previews short bodies whole and empty bodies not at all', () => {
    expect(bodyPreview(Buffer.from('short'), 10)).toBe('short');
    expect(bodyPreview(Buffer.alloc(0), 10)).toBeUndefined();
  });

  it('is read-only, so the agent bytes are forwarded as they are', () => {
    expect(createLoggingMiddleware(captureLogger().logger).readOnly).toBe(true);
  });
});

describe('DoubleMaxTokens', () => {
  const double = createDoubleMaxTokensMiddleware();

  it('doubles a non-zero max_tokens', async () => {
    const request = vendorRequest(100);
    const out = await double.request?.(request, contextFor(request));
    expect(out?.vendorRequestData?.max_tokens).toBe(200);
  });

  it('leaves zero, missing max_tokens and other requests alone', async () => {
    for (const request of [vendorRequest(0), vendorRequest(undefined)]) {
      const before = request.vendorRequestData?.max_tokens;
      const out = await double.request?.(request, contextFor(request));
      expect(out?.vendorRequestData?.max_tokens).toBe(before);
    }
    const plain: ProxyRequest = { method: 'GET', url: '/v1/models', headers: {} };
    expect(await double.request?.(plain, contextFor(plain))).toEqual({
      method: 'GET',
      url: '/v1/models',
      headers: {},
    });
  });
});

describe('loadUserMiddleware', () => {
  const context = { logger: captureLogger().logger };

  it('loads a factory with its options and an object with methods, paths relative to the config folder', async () => {
    const result = await loadUserMiddleware(
      [{ module: './tag-header-factory.ts', options: { tag: 'blue' } }, { module: 'counting-object.ts' }],
      fixtures,
      context,
    );
    if (!result.ok) throw new Error(result.error.message);
    const [tagger, counter] = result.value;
    expect(tagger?.name).toBe('tag-header');
    expect(counter?.name).toBe('counting-object.ts');
    const request: ProxyRequest = { method: 'GET', url: '/', headers: {} };
    await tagger?.request?.(request, contextFor(request));
    expect(request.headers['x-user-tag']).toBe('blue');
    // Methods keep their `this`: the object's own counter advances.
    await counter?.response?.({ status: 200, headers: {} }, contextFor(request));
    const second = await counter?.response?.({ status: 200, headers: {} }, contextFor(request));
    expect(second?.headers['x-seen-count']).toBe('2');
  });

  it('refuses a missing module and an export that is not middleware, naming the path', async () => {
    const missing = await loadUserMiddleware([{ module: './nope.ts' }], fixtures, context);
    expect(missing).toMatchObject({ ok: false, error: { code: 'PROXY_MIDDLEWARE_LOAD_FAILED' } });
    if (!missing.ok) expect(missing.error.message).toContain('nope.ts');
    const wrong = await loadUserMiddleware([{ module: './not-middleware.ts' }], fixtures, context);
    expect(wrong).toMatchObject({ ok: false, error: { code: 'PROXY_MIDDLEWARE_LOAD_FAILED' } });
    if (!wrong.ok) expect(wrong.error.message).toMatch(/not-middleware\.ts must default-export/);
  });
});
