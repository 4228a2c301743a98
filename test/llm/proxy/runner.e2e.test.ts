import { once } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProxyError } from '../../../src/llm/proxy/errors.ts';
import { ProxyRunner } from '../../../src/llm/proxy/runner.ts';
import { type ProxyHandle, startProxyForServer } from '../../../src/llm/proxy/start-for-server.ts';
import { resolveProxyConfig } from '../../../src/plan/config/proxy-config.ts';
import { errorOf, request } from './helpers/client.ts';
import { captureLogger, linesTagged } from './helpers/logs.ts';
import { startProxy } from './helpers/proxy.ts';
import { readText, signal } from './helpers/text-reader.ts';
import { echo, freePort, startUpstream, type TestUpstream } from './helpers/upstream.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

let upstream: TestUpstream;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(async () => {
  await upstream.close();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  upstream.received.length = 0;
  upstream.handle(echo);
});

/** A server holding a loopback port, standing in for whatever already uses it. */
async function occupyPort(): Promise<number> {
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as AddressInfo).port;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

function enabledConfig(file: Record<string, unknown>) {
  const result = resolveProxyConfig({ cli: { proxy: true, providerBaseUrl: upstream.url }, env: {}, file });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

describe('ProxyRunner construction', () => {
  const base = { port: 0, targetUrl: 'http://127.0.0.1:1', logger: captureLogger().logger, idleTimeoutMs: 0 };

  it('refuses any mode but passthrough', () => {
    const error = thrown(() => new ProxyRunner({ ...base, mode: 'caching' }));
    expect(error).toBeInstanceOf(ProxyError);
    expect(error).toMatchObject({ code: 'PROXY_MODE_UNSUPPORTED' });
  });

  it('refuses a bad target URL and bad numbers', () => {
    expect(
      thrown(() => new ProxyRunner({ ...base, mode: 'passthrough', targetUrl: 'ftp://x' })),
    ).toMatchObject({
      code: 'PROXY_INVALID_OPTIONS',
    });
    expect(thrown(() => new ProxyRunner({ ...base, mode: 'passthrough', idleTimeoutMs: -1 }))).toMatchObject({
      code: 'PROXY_INVALID_OPTIONS',
    });
  });

  it('refuses an in-flight limit below the body limit', () => {
    const error = thrown(
      () => new ProxyRunner({ ...base, mode: 'passthrough', maxBodyBytes: 2048, maxInFlightBytes: 1024 }),
    );
    expect(error).toMatchObject({ code: 'PROXY_INVALID_OPTIONS' });
    expect(String((error as Error).message)).toMatch(/maxInFlightBytes \(1024\) is below maxBodyBytes/);
  });
});

describe('requests Node cannot parse', () => {
  async function rawAnswer(url: string, bytes: string): Promise<string> {
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
    socket.on('error', () => {});
    let answer = '';
    socket.on('data', (data: Buffer) => {
      answer += data.toString('latin1');
    });
    await once(socket, 'connect');
    socket.write(bytes);
    await new Promise((resolve) => socket.once('close', resolve));
    return answer;
  }

  it('headers past 16 KiB get 431, a malformed head 400; the proxy goes on', async () => {
    const proxy = await startProxy(upstream.url);
    cleanups.push(() => proxy.stop());
    const huge = `GET /v1/models HTTP/1.1\r\nhost: x\r\nx-filler: ${'a'.repeat(20 * 1024)}\r\n\r\n`;
    expect(await rawAnswer(proxy.url, huge)).toMatch(/^HTTP\/1\.1 431 /);
    expect(await rawAnswer(proxy.url, 'GET / HTTP/1.1\r\nbad header\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect(linesTagged(proxy.lines, '[PROXY] malformed request')).toHaveLength(2);
    expect((await request(`${proxy.url}/health`)).status).toBe(200);
  });
});

describe('ProxyRunner lifecycle', () => {
  it('start returns the URL; stop closes the port', async () => {
    const proxy = await startProxy(upstream.url);
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(proxy.runner.url).toBe(proxy.url);
    expect(linesTagged(proxy.lines, '[PROXY] listening')).toHaveLength(1);
    await proxy.stop();
    await expect(request(`${proxy.url}/health`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await proxy.stop(); // a second stop is harmless
  });

  it('refuses a port in use with a message naming it', async () => {
    const port = await occupyPort();
    const runner = new ProxyRunner({
      mode: 'passthrough',
      port,
      targetUrl: upstream.url,
      logger: captureLogger().logger,
      idleTimeoutMs: 0,
    });
    const error = await runner.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProxyError);
    expect(error).toMatchObject({ code: 'PROXY_PORT_IN_USE' });
    expect(String((error as Error).message)).toContain(String(port));
  });

  it('stop ends open exchanges: a relayed stream is cut, a waiting one gets 503', async () => {
    const streamed = signal();
    upstream.handle((received, res) => {
      if (received.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: ping\ndata: {}\n\n');
      } else {
        streamed.resolve(); // the waiting request arrived; never answer it
      }
    });
    const proxy = await startProxy(upstream.url);
    const client = http.request(`${proxy.url}/stream`, { agent: false });
    client.on('error', () => {});
    client.end();
    cleanups.push(() => client.destroy());
    const [response] = (await once(client, 'response')) as [http.IncomingMessage];
    const reader = readText(response);
    await reader.until((text) => text.includes('ping'));
    const waiting = request(`${proxy.url}/wait`);
    await streamed.promise;
    await proxy.stop();
    expect((await reader.finished).kind).toBe('error');
    const answered = await waiting;
    expect(answered.status).toBe(503);
    expect(errorOf(answered).error.message).toMatch(/shutting down/);
  });
});

describe('startProxyForServer', () => {
  /** Starts beside a made-up main port whose + 1 is free a moment before. */
  async function startBeside(config: ReturnType<typeof enabledConfig>) {
    const { logger, lines } = captureLogger();
    const port = await freePort();
    const handle = await startProxyForServer({
      config,
      mainPort: port - 1,
      logger,
      configDir: fixtures,
    });
    if (handle) cleanups.push(() => handle.stop());
    return { handle, lines, port };
  }

  it('does nothing when the proxy is disabled', async () => {
    const result = resolveProxyConfig({ cli: {}, env: {}, file: {} });
    if (!result.ok) throw new Error(result.error.message);
    const handle = await startProxyForServer({
      config: result.value,
      mainPort: 4000,
      logger: captureLogger().logger,
      configDir: fixtures,
    });
    expect(handle).toBeUndefined();
  });

  it('listens on main port + 1 with logging, DoubleMaxTokens and user middleware in order', async () => {
    const config = enabledConfig({
      proxyDoubleMaxTokens: true,
      proxyMiddleware: [
        { module: './tag-header-factory.ts', options: { tag: 'green' } },
        './counting-object.ts',
      ],
    });
    const { handle, lines, port } = await startBeside(config);
    expect(handle?.url).toBe(`http://127.0.0.1:${port}`);
    const response = await request(`${handle!.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', max_tokens: 7, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(response.headers['x-seen-count']).toBe('1');
    const seen = upstream.received[0]!;
    expect(seen.headers['x-user-tag']).toBe('green');
    expect(JSON.parse(seen.body.toString()).max_tokens).toBe(14);
    // Logging runs first, so it records what the agent asked for.
    expect(linesTagged(lines, '[LOGGING-MIDDLEWARE] request')[0]).toMatchObject({ max_tokens: 7 });
    expect(linesTagged(lines, '[LOGGING-MIDDLEWARE] response')[0]).toMatchObject({ status: 200 });
  });

  it('fails with PROXY_PORT_IN_USE when main port + 1 is taken', async () => {
    const taken = await occupyPort();
    const error = await startProxyForServer({
      config: enabledConfig({}),
      mainPort: taken - 1,
      logger: captureLogger().logger,
      configDir: fixtures,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'PROXY_PORT_IN_USE' });
    expect(String((error as Error).message)).toContain(`port ${taken}`);
  });

  it('fails with PROXY_MIDDLEWARE_LOAD_FAILED for a module that is not middleware', async () => {
    const error = await startProxyForServer({
      config: enabledConfig({ proxyMiddleware: ['./not-middleware.ts'] }),
      mainPort: 40_000,
      logger: captureLogger().logger,
      configDir: fixtures,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'PROXY_MIDDLEWARE_LOAD_FAILED' });
  });

  it('refuses a main port that leaves no port + 1', async () => {
    const handle: Promise<ProxyHandle | undefined> = startProxyForServer({
      config: enabledConfig({}),
      mainPort: 65535,
      logger: captureLogger().logger,
      configDir: fixtures,
    });
    await expect(handle).rejects.toMatchObject({ code: 'PROXY_INVALID_OPTIONS' });
  });
});
