/**
 * `ribosome mcp --http`: MCP over streamable HTTP, behind the protocol's access token and origin rule.
 */
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { READING_TOOLS, WRITING_TOOLS } from '../../../src/clients/mcp/index.ts';
import { waitFor } from '../../helpers/processes.ts';
import { killAll, runCli, tempDir } from '../../helpers/server-process.ts';

const TOKEN = 'mcp-test-token-0123456789';
const temps: Array<{ remove(): void }> = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  killAll();
});
afterAll(() => {
  for (const t of temps.splice(0)) t.remove();
});

async function serve(args: string[], env: NodeJS.ProcessEnv) {
  const t = tempDir();
  temps.push(t);
  const proc = runCli(['mcp', '--http', '--port', '0', ...args], { env, cwd: t.path });
  await waitFor(() => /^mcp http:\/\/\S+$/m.test(proc.stdout()), 'the mcp line', 20_000);
  const url = /^mcp (http:\/\/\S+)$/m.exec(proc.stdout())?.[1] ?? '';
  return { url, proc };
}

async function session(url: string, token: string) {
  const client = new Client({ name: 'ribosome-http-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
});
const post = (url: string, headers: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: initialize,
  });

/** A POST with a Host header of its own (fetch sends the URL's whatever it is given). */
function postAs(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          Host: host,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
        },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(initialize);
  });
}

describe('ribosome mcp --http', () => {
  it('asks for the token (401 without, 403 wrong), refuses a foreign page, and serves two sessions with it', async () => {
    const { url } = await serve([], { RIBOSOME_TOKEN: TOKEN });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    const none = await post(url, {});
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: 'token_required' });
    expect((await post(url, { Authorization: 'Bearer not-the-token-at-all' })).status).toBe(403);
    const page = await post(url, { Authorization: `Bearer ${TOKEN}`, Origin: 'http://evil.example' });
    expect(page.status).toBe(403);
    expect(await page.json()).toMatchObject({ error: 'origin_not_allowed' });
    expect(
      (await fetch(url.replace(/\/mcp$/, '/'), { headers: { Authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(404);

    const first = await session(url, TOKEN);
    const second = await session(url, TOKEN);
    const all = [...READING_TOOLS, ...WRITING_TOOLS].sort();
    expect((await first.listTools()).tools.map((t) => t.name).sort()).toEqual(all);
    expect((await second.listTools()).tools.map((t) => t.name).sort()).toEqual(all);
    const listed = await second.callTool({ name: 'list_executions', arguments: {} });
    expect(listed.isError).toBeFalsy();
    expect((listed.content as Array<{ text: string }>)[0]?.text).toMatch(
      /^no execution under .*ribosome-runs$/,
    );
    // The first session is its own: closing the second leaves it serving.
    await second.close();
    expect((await first.listTools()).tools.length).toBe(all.length);
  });

  it('read-only over HTTP offers the reading tools; without a token on loopback, a rebound Host is refused', async () => {
    const { url } = await serve(['--readonly'], { RIBOSOME_TOKEN: '' });
    const client = new Client({ name: 'ribosome-http-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([...READING_TOOLS].sort());
    const rebound = await postAs(url, 'evil.example');
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({ error: 'host_not_allowed' });
  });
});
