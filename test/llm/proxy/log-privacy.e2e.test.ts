import { once } from 'node:events';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ProxyHandle, startProxyForServer } from '../../../src/llm/proxy/start-for-server.ts';
import { resolveProxyConfig } from '../../../src/plan/config/proxy-config.ts';
import { request } from './helpers/client.ts';
import { captureLogger, type LogLine } from './helpers/logs.ts';
import { echo, freePort, startUpstream, type TestUpstream } from './helpers/upstream.ts';

// What must never reach the log: prompt text, the agent's credentials, credentials in a query.
const PROMPT = 'PROMPT-TEXT-the-user-typed';
const API_KEY = 'sk-ant-api03-HEADERSECRET';
const BEARER = 'BEARERSECRET';
const QUERY_KEY = 'QUERYSECRET';
const SECRETS = [PROMPT, API_KEY, BEARER, QUERY_KEY];

let upstream: TestUpstream;
let proxy: ProxyHandle | undefined;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.handle((received, res, req) => {
    if (received.url.includes('reset')) req.socket.destroy();
    else echo(received, res, req);
  });
});
afterAll(async () => {
  await upstream.close();
});
afterEach(async () => {
  await proxy?.stop();
  proxy = undefined;
});

/** The proxy as `--proxy` starts it (LoggingMiddleware first), with the given config file keys. */
async function startAsServerDoes(file: Record<string, unknown>): Promise<{ url: string; lines: LogLine[] }> {
  const config = resolveProxyConfig({
    cli: { proxy: true, providerBaseUrl: upstream.url },
    env: {},
    file: { proxyMaxBodyBytes: 4096, ...file },
  });
  if (!config.ok) throw new Error(config.error.message);
  const { logger, lines } = captureLogger();
  const port = await freePort();
  proxy = await startProxyForServer({
    config: config.value,
    mainPort: port - 1,
    logger,
    configDir: '.',
  });
  if (!proxy) throw new Error('proxy not started');
  return { url: proxy.url, lines };
}

const credentials = { 'x-api-key': API_KEY, authorization: `Bearer ${BEARER}` };
const messages = JSON.stringify({
  model: 'claude-sonnet-4-5',
  max_tokens: 16,
  messages: [{ role: 'user', content: PROMPT }],
});

/** Sends what the probe sent: prompts in every kind of body, keys in headers and in queries. */
async function sendEverything(url: string) {
  const post = (path: string, body: string) =>
    request(`${url}${path}`, {
      method: 'POST',
      headers: { ...credentials, 'content-type': 'application/json' },
      body,
    });
  expect((await post(`/v1/messages?beta=true&api_key=${QUERY_KEY}`, messages)).status).toBe(200);
  expect((await post(`/v1/messages/count_tokens?Token=${QUERY_KEY}`, messages)).status).toBe(200);
  expect((await post('/v1/messages', `{"messages": "${PROMPT}" (not JSON`)).status).toBe(200);
  expect((await post(`/v1/messages?reset&key=${QUERY_KEY}`, messages)).status).toBe(502);
  expect((await post(`/v1/messages?access_token=${QUERY_KEY}`, PROMPT.repeat(500))).status).toBe(413);

  // A request Node cannot parse: its raw bytes (headers included) ride on the parse error.
  const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
  socket.on('error', () => {});
  let answer = '';
  socket.on('data', (data: Buffer) => {
    answer += data.toString('latin1');
  });
  await once(socket, 'connect');
  socket.write(`POST /v1/messages?sig=${QUERY_KEY} HTTP/1.1\r\nx-api-key: ${API_KEY}\r\nbad header\r\n\r\n`);
  await new Promise((resolve) => socket.once('close', resolve));
  expect(answer).toMatch(/^HTTP\/1\.1 400 /);
}

function expectNothingSecret(lines: readonly LogLine[]) {
  const log = JSON.stringify(lines);
  for (const secret of SECRETS) expect(log).not.toContain(secret);
  expect(log).not.toContain('rawPacket');
  expect(log.toLowerCase()).not.toContain('authorization');
  expect(log.toLowerCase()).not.toContain('x-api-key');
}

describe('what the proxy logs', () => {
  it('no prompt text, no header, and credential-like query values redacted, on every path', async () => {
    const { url, lines } = await startAsServerDoes({});
    await sendEverything(url);
    expectNothingSecret(lines);
    // The lines are there, with what is safe to say.
    const requests = lines.filter((line) => line.msg === '[LOGGING-MIDDLEWARE] request');
    expect(requests.map((line) => line.url)).toEqual([
      '/v1/messages?beta=true&api_key=[REDACTED]',
      '/v1/messages/count_tokens?Token=[REDACTED]',
      '/v1/messages',
      '/v1/messages?reset&key=[REDACTED]',
    ]);
    expect(requests[0]).toMatchObject({ model: 'claude-sonnet-4-5', messages: 1 });
    expect(requests[1]).toMatchObject({ bytes: Buffer.byteLength(messages) });
    expect(requests[1]).not.toHaveProperty('body');
    const errors = lines.filter((line) => line.msg.startsWith('[PROXY-ERROR]'));
    expect(errors.map((line) => [line.code, line.url])).toEqual([
      ['UPSTREAM_RESET', '/v1/messages?reset&key=[REDACTED]'],
      ['BODY_TOO_LARGE', '/v1/messages?access_token=[REDACTED]'],
    ]);
    expect(lines.filter((line) => line.msg === '[PROXY] malformed request from agent')).toHaveLength(1);
  });

  it('proxyLogBodies turns body previews on for debugging; credentials stay out all the same', async () => {
    const { url, lines } = await startAsServerDoes({ proxyLogBodies: true });
    await sendEverything(url);
    const previews = lines.filter((line) => typeof line.body === 'string');
    expect(previews.length).toBe(2); // count_tokens and the malformed Messages body
    for (const line of previews) expect(line.body).toContain(PROMPT);
    const withoutPreviews = lines.map(({ body: _, ...line }) => line);
    expectNothingSecret(withoutPreviews as LogLine[]);
  });
});
