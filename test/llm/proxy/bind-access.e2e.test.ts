/**
 * Issue 27: the proxy binds loopback whatever --host says; bound beyond it (--proxy-host), it refuses
 * and counts requests without the access token while the server's own agents (which carry the run's
 * agent credential in their base URL) still get through; a path that climbs out of its prefix is refused.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import { REFUSED_HEADER } from '../../../src/llm/proxy/runner.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { ROOT, startServer, tempDir } from '../../helpers/server-process.ts';

const { temps, clients } = e2eResources();
const TOKEN = 'bind-access-test-token-0123456789';
const DEMO_PLAN = join(ROOT, 'examples/demo/plan.yaml');
const DEMO_SCRIPT = join(ROOT, 'examples/scripts/demo.yaml');

/** A Messages request sent with its path as it is (fetch would resolve dots itself). */
function post(base: string, path: string, headers: Record<string, string> = {}) {
  const body = JSON.stringify({
    model: 'claude-sonnet-4-5',
    max_tokens: 5,
    messages: [{ role: 'user', content: 'hi' }],
  });
  const { hostname, port } = new URL(base);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request({
      hostname,
      port,
      path,
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'k',
        'content-length': Buffer.byteLength(body),
        ...headers,
      },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      let text = '';
      response.on('data', (d: Buffer) => {
        text += d.toString();
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.end(body);
  });
}

function execDir(): string {
  const t = tempDir();
  temps.push(t);
  return join(t.path, 'exec');
}

describe('where the proxy listens and whom it serves', () => {
  it('binds loopback with --host 0.0.0.0, and serves without a credential there as before', async () => {
    const exec = execDir();
    const server = await startServer(join(ROOT, 'examples/empty/plan.yaml'), exec, [
      '--host',
      '0.0.0.0',
      '--token',
      TOKEN,
      '--proxy',
      '--scripted-provider',
      DEMO_SCRIPT,
    ]);
    const c = await RibosomeClient.connect(`ws://127.0.0.1:${server.port}`, {
      mode: 'readonly',
      token: TOKEN,
    });
    clients.push(c);
    const proxyUrl = `http://127.0.0.1:${server.port + 1}`;
    expect(server.url).toBe(`ws://0.0.0.0:${server.port}`);
    expect(c.serverInfo.proxy).toEqual({ enabled: true, url: proxyUrl });
    expect((await post(proxyUrl, '/v1/messages')).status).toBe(200);
    expect(server.stderr()).not.toMatch(/proxy listens beyond loopback/);
    c.send('server.shutdown');
    await server.exited;
    const listening = readFileSync(join(exec, '.ribosome/logs/server.log'), 'utf8')
      .split('\n')
      .find((line) => line.includes('[PROXY] listening'));
    expect(JSON.parse(listening ?? '{}').url).toBe(proxyUrl);
  });

  it('with --proxy-host 0.0.0.0: refuses and counts requests without the token, passes it, and the agent still completes its codons', async () => {
    const exec = execDir();
    const server = await startServer(DEMO_PLAN, exec, [
      '--token',
      TOKEN,
      '--proxy',
      '--proxy-host',
      '0.0.0.0',
      '--scripted-provider',
      DEMO_SCRIPT,
    ]);
    const c = await RibosomeClient.connect(server.url, {
      mode: 'readonly',
      sendPreviousEvents: true,
      token: TOKEN,
    });
    clients.push(c);
    expect(c.serverInfo.proxy).toEqual({ enabled: true, url: `http://0.0.0.0:${server.port + 1}` });
    expect(server.stderr()).toMatch(/LLM proxy listens beyond loopback .*\/t\/<token>.*x-ribosome-token/);
    // Bound to 0.0.0.0, reached through 127.0.0.1 (tests stay on loopback).
    const proxyUrl = `http://127.0.0.1:${server.port + 1}`;

    const none = await post(proxyUrl, '/v1/messages');
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body)).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    expect((await post(proxyUrl, '/t/not-the-token/v1/messages')).status).toBe(403);
    expect((await post(proxyUrl, `/t/${TOKEN}/../../v1/messages`)).status).toBe(400);
    const health = await fetch(`${proxyUrl}/health`);
    expect(health.headers.get(REFUSED_HEADER)).toBe('3');

    if (
      !c.handshake.eventHistory.some(
        (e) => e.type === 'server.idle' && e.data.reason === 'all-codons-completed',
      )
    )
      await c.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 90_000);
    const completed = c.received.filter((e) => e.type === 'codon.completed');
    expect(completed.map((e) => e.data.success)).toEqual([true, true, true]);

    // With the token (path or header), anyone may use it.
    expect((await post(proxyUrl, `/t/${TOKEN}/v1/messages`)).status).not.toBe(401);
    expect((await post(proxyUrl, '/v1/messages', { 'x-ribosome-token': TOKEN })).status).not.toBe(401);
    expect((await fetch(`${proxyUrl}/health`)).headers.get(REFUSED_HEADER)).toBe('3');

    c.send('server.shutdown');
    expect((await server.exited).code).toBe(0);
    const log = readFileSync(join(exec, '.ribosome/logs/server.log'), 'utf8');
    // The agent's traffic went through the proxy; refusals are counted; no credential is logged.
    expect(log).toMatch(/\[LOGGING-MIDDLEWARE\] request/);
    expect(log).toMatch(/\[PROXY\] refused a request \(PROXY_CREDENTIAL_MISSING\); 1 refused so far/);
    expect(log).toMatch(/3 refused so far/);
    expect(log).not.toContain(TOKEN);
    expect(log).not.toMatch(/\/t\/[A-Za-z0-9_-]{20,}/);
  });
});
