import { readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RefusedUpgradeError, RibosomeClient } from '../../../src/core/client/index.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { simplePlan, writePlanAndScript } from '../../helpers/plans.ts';
import { waitFor } from '../../helpers/processes.ts';
import { bounded, runCli, startServer, tempDir } from '../../helpers/server-process.ts';
import { fakeDashboard, get, ticketFrom, upgrade } from './helpers.ts';

const { temps, clients } = e2eResources();

function setup() {
  const t = tempDir();
  temps.push(t);
  const files = writePlanAndScript(t.path, simplePlan(['one']), 'turns: []\n');
  return {
    dir: t.path,
    plan: files.plan,
    exec: join(t.path, 'exec'),
    web: fakeDashboard(t.path),
    offline: ['--no-autostart', '--scripted-provider', files.script],
  };
}

/** Every file the server wrote under .ribosome (journal database, WAL, log), as text. */
function internalFiles(exec: string): string {
  const root = join(exec, '.ribosome');
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name)).toString('latin1'))
    .join('\n');
}

/** The dashboard line a server printed on stderr: its URL, and the token in it if any. */
async function dashboardLine(stderr: () => string) {
  await waitFor(() => /^dashboard http:\S+$/m.test(stderr()), 'the dashboard line', 20_000);
  const url = new URL(/^dashboard (http:\S+)$/m.exec(stderr())![1]!);
  return { url, origin: url.origin, token: url.searchParams.get('token') ?? undefined };
}

const local = (url: string) => url.replace('0.0.0.0', '127.0.0.1');

describe('access token', () => {
  it('beyond loopback: generated, printed once, required on the upgrade (401/403), two ways in (no cookie), never logged', async () => {
    const s = setup();
    const server = await startServer(s.plan, s.exec, ['--host', '0.0.0.0', ...s.offline]);
    expect(server.url).toMatch(/^ws:\/\/0\.0\.0\.0:\d+$/);
    const url = local(server.url);
    const token = /access token \(clients send Authorization: Bearer <token>\): (\S+)$/m.exec(
      server.stderr(),
    )?.[1];
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(server.stderr().split(token!).length - 1).toBe(1);
    expect(server.stdout()).toBe(`listening ${server.url}\n`);

    expect(await upgrade(url)).toBe(401);
    expect(await upgrade(url, { authorization: 'Bearer not-the-token-at-all' })).toBe(403);
    // A cookie is not read: a browser sends a host's cookies to every port of it.
    expect(await upgrade(url, { cookie: `ribosome_token_${server.port}=${token}` })).toBe(401);
    expect(await upgrade(`${url}/?token=nope-nope-nope-nope`)).toBe(403);
    expect(await upgrade(url, { authorization: `Bearer ${token}` })).toBe('open');
    expect(await upgrade(`${url}/?token=${token}`)).toBe('open');
    // The typed client: refused without it (the status says why), handshaken with it.
    const refused = await RibosomeClient.connect(url, { mode: 'readonly', connectTimeoutMs: 5_000 }).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(RefusedUpgradeError);
    expect((refused as RefusedUpgradeError).status).toBe(401);
    const client = await RibosomeClient.connect(url, {
      mode: 'readandwrite',
      token: token!,
      sendPreviousEvents: true,
    });
    clients.push(client);
    expect(client.mode).toBe('readandwrite');
    // The server's own events and log after all this: the token is in none of them.
    await client.request('checkpoint.list', {}, 'checkpoint.list');
    await client.close();
    server.kill('SIGTERM');
    expect((await bounded(server.exited, 20_000))?.code).toBe(0);
    const written = internalFiles(s.exec);
    expect(written).toContain('refused WebSocket upgrade: token');
    expect(written).not.toContain(token);
  });

  it('stays off on loopback unless given; a given token is required there too; a short one exits 2', async () => {
    const s = setup();
    const open = await startServer(s.plan, s.exec, [...s.offline]);
    expect(open.stderr()).not.toContain('access token');
    expect(await upgrade(open.url)).toBe('open');
    open.kill('SIGTERM');
    await bounded(open.exited, 20_000);
    const token = 'a-given-token-of-enough-length';
    const guarded = await startServer(s.plan, s.exec, [...s.offline], 20_000, { RIBOSOME_TOKEN: token });
    expect(guarded.stderr()).not.toContain(token);
    expect(await upgrade(guarded.url)).toBe(401);
    expect(await upgrade(guarded.url, { authorization: `Bearer ${token}` })).toBe('open');
    guarded.kill('SIGTERM');
    await bounded(guarded.exited, 20_000);
    const short = runCli([
      'run',
      s.plan,
      '--headless',
      '--execution',
      s.exec,
      ...s.offline,
      '--token',
      'short',
    ]);
    expect((await bounded(short.exited, 20_000))?.code).toBe(2);
    expect(short.stderr()).toContain('--token must be at least 16 characters');
  });
});

describe('ribosome run --web', () => {
  it('serves the dashboard on port + 2: files, config.json, no escapes, 404, 400 on the main port, gone with the server', async () => {
    const s = setup();
    symlinkSync(join(s.dir, 'secret.txt'), join(s.web, 'link.txt'));
    const server = await startServer(s.plan, s.exec, [...s.offline, '--web'], 20_000, {
      RIBOSOME_WEB_ROOT: s.web,
    });
    const { url, token } = await dashboardLine(server.stderr);
    expect(token).toBeUndefined();
    expect(Number(url.port)).toBe(server.port + 2);
    expect(server.stdout()).toBe(`listening ${server.url}\n`);
    const base = url.href;
    const index = await get(base, '/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.body).toContain('fake dashboard');
    const etag = index.headers.etag as string;
    expect(etag).toBeTruthy();
    expect((await get(base, '/', { 'if-none-match': etag })).status).toBe(304);
    expect((await get(base, '/app.js')).headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await get(base, '/app.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    const config = await get(base, '/config.json');
    expect(JSON.parse(config.body)).toEqual({ servers: [{ url: server.url }], readonly: false });
    for (const path of [
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/../../secret.txt',
      '/link.txt',
      '/assets/',
      '/assets',
      '/nope.js',
    ]) {
      const answer = await get(base, path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toContain('not for the web');
    }
    expect((await get(`http://127.0.0.1:${server.port}/`, '/')).status).toBe(400);
    // The page's origin opens the WebSocket with the ticket its dashboard hands it, not by itself.
    expect(await upgrade(server.url, { origin: url.origin })).toBe(403);
    const { ticket } = await ticketFrom(base, url.origin);
    expect(ticket).toBeTruthy();
    const offered = ['ribosome', `ribosome-ticket.${ticket}`];
    expect(await upgrade(server.url, { origin: url.origin }, offered)).toBe('open');
    // Another local server's page: neither its origin nor a ticket made for another origin will do.
    const foreign = `http://127.0.0.1:${Number(url.port) + 1}`;
    expect(await upgrade(server.url, { origin: foreign })).toBe(403);
    expect(await upgrade(server.url, { origin: foreign }, offered)).toBe(403);
    // And its dashboard hands it none: the origin asked for is not the one the request reached.
    expect((await ticketFrom(base, foreign)).status).toBe(403);
    expect(
      (await get(base, `/ticket?server=0&origin=${encodeURIComponent(url.origin)}`, { origin: foreign }))
        .status,
    ).toBe(403);
    server.kill('SIGTERM');
    expect((await bounded(server.exited, 20_000))?.code).toBe(0);
    await expect(get(base, '/')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('with a token: static files for all, config.json and tickets with the token only, no cookie; never logged', async () => {
    const s = setup();
    const server = await startServer(
      s.plan,
      s.exec,
      [...s.offline, '--web', '--host', '0.0.0.0', '--web-port', '0'],
      20_000,
      {
        RIBOSOME_WEB_ROOT: s.web,
      },
    );
    const { url, token } = await dashboardLine(server.stderr);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Printed once, in the dashboard's address only.
    expect(server.stderr().split(token!).length - 1).toBe(1);
    const base = local(url.origin);
    // The page itself holds nothing secret; what it reads next needs the token.
    expect((await get(base, '/')).body).toContain('fake dashboard');
    const opened = await get(base, `/?token=${token}`);
    expect(opened.status).toBe(200);
    expect(opened.headers['set-cookie']).toBeUndefined();
    expect((await get(base, '/?token=wrong-wrong-wrong-wrong')).status).toBe(403);
    const bearer = { authorization: `Bearer ${token}` };
    expect((await get(base, '/config.json')).status).toBe(401);
    expect(
      (await get(base, '/config.json', { authorization: 'Bearer wrong-wrong-wrong-wrong' })).status,
    ).toBe(403);
    expect(
      (await get(base, '/config.json', { cookie: `ribosome_token_${server.port}=${token}` })).status,
    ).toBe(401);
    const config = JSON.parse(
      (await get(base, '/config.json', { ...bearer, host: `box.example:${url.port}` })).body,
    );
    expect(config).toEqual({ servers: [{ url: `ws://box.example:${server.port}` }], readonly: false });
    // The page, reached as box.example, gets a ticket for that origin and opens the WebSocket with it.
    const page = `http://box.example:${url.port}`;
    const asked = await get(base, `/ticket?server=0&origin=${encodeURIComponent(page)}`, {
      ...bearer,
      host: `box.example:${url.port}`,
    });
    expect(asked.status).toBe(200);
    const ticket = (JSON.parse(asked.body) as { ticket: string }).ticket;
    expect(
      (
        await get(base, `/ticket?server=0&origin=${encodeURIComponent(page)}`, {
          host: `box.example:${url.port}`,
        })
      ).status,
    ).toBe(401);
    const ws = local(server.url);
    const offered = ['ribosome', `ribosome-ticket.${ticket}`];
    expect(await upgrade(ws, { origin: page, host: `box.example:${server.port}` }, offered)).toBe('open');
    expect(await upgrade(ws, { origin: `http://evil.example:${url.port}` }, offered)).toBe(403);
    expect(await upgrade(ws, { origin: page })).toBe(403);
    server.kill('SIGTERM');
    expect((await bounded(server.exited, 20_000))?.code).toBe(0);
    const written = internalFiles(s.exec);
    expect(written).not.toContain(token);
    expect(written).not.toContain(ticket);
  });

  it("two servers on one host: each dashboard's tickets open its own server only", async () => {
    const servers = [];
    for (const token of ['token-of-server-a-0123456789', 'token-of-server-b-0123456789']) {
      const s = setup();
      const server = await startServer(s.plan, s.exec, [...s.offline, '--web', '--web-port', '0'], 20_000, {
        RIBOSOME_WEB_ROOT: s.web,
        RIBOSOME_TOKEN: token,
      });
      servers.push({ server, token, dashboard: (await dashboardLine(server.stderr)).url });
    }
    const [a, b] = servers as [(typeof servers)[0], (typeof servers)[0]];
    const ticketA = (await ticketFrom(a.dashboard.origin, a.dashboard.origin, a.token)).ticket!;
    expect((await ticketFrom(a.dashboard.origin, a.dashboard.origin, b.token)).status).toBe(403);
    const offered = ['ribosome', `ribosome-ticket.${ticketA}`];
    expect(await upgrade(a.server.url, { origin: a.dashboard.origin }, offered)).toBe('open');
    expect(await upgrade(b.server.url, { origin: a.dashboard.origin }, offered)).toBe(403);
    for (const { server } of servers) {
      server.kill('SIGTERM');
      expect((await bounded(server.exited, 20_000))?.code).toBe(0);
    }
  });

  it('says to build the dashboard when dist-web/ is missing (503), config.json still answers', async () => {
    const s = setup();
    const server = await startServer(s.plan, s.exec, [...s.offline, '--web', '--web-port', '0'], 20_000, {
      RIBOSOME_WEB_ROOT: join(s.dir, 'not-built'),
    });
    const { url } = await dashboardLine(server.stderr);
    const page = await get(url.href, '/');
    expect(page.status).toBe(503);
    expect(page.body).toContain('npm run build:web');
    expect((await get(url.href, '/config.json')).status).toBe(200);
  });
});

describe('ribosome web', () => {
  it('serves config.json listing the servers given, readonly when asked, and exits on SIGTERM', async () => {
    const s = setup();
    const web = runCli(['web', 'ws://127.0.0.1:7001', 'ws://127.0.0.1:7002', '--port', '0', '--readonly'], {
      env: { RIBOSOME_WEB_ROOT: s.web },
    });
    await waitFor(() => /^dashboard http:\S+$/m.test(web.stdout()), 'the dashboard line', 20_000);
    const url = /^dashboard (http:\S+)$/m.exec(web.stdout())![1]!;
    const config = await get(url, '/config.json');
    expect(JSON.parse(config.body)).toEqual({
      servers: [{ url: 'ws://127.0.0.1:7001' }, { url: 'ws://127.0.0.1:7002' }],
      readonly: true,
    });
    expect((await get(url, '/')).body).toContain('fake dashboard');
    web.kill('SIGTERM');
    expect((await bounded(web.exited, 10_000))?.code).toBe(0);
    for (const address of ['http://127.0.0.1:7001', 'ws://127.0.0.1:notaport', 'ws://127.0.0.1:99999']) {
      const bad = runCli(['web', 'ws://127.0.0.1:7001', address]);
      expect((await bounded(bad.exited, 10_000))?.code, address).toBe(2);
      expect(bad.stderr()).toContain(`"${address}" is not a WebSocket address`);
    }
  });

  it('with --token: the printed address carries it; config.json needs it as a Bearer header; no cookie', async () => {
    const s = setup();
    const token = 'a-given-token-of-enough-length';
    const web = runCli(
      ['web', 'ws://127.0.0.1:7001', 'ws://127.0.0.1:7002/', '--port', '0', '--token', token],
      {
        env: { RIBOSOME_WEB_ROOT: s.web },
      },
    );
    await waitFor(() => /^dashboard http:\S+$/m.test(web.stdout()), 'the dashboard line', 20_000);
    const url = new URL(/^dashboard (http:\S+)$/m.exec(web.stdout())![1]!);
    expect(url.searchParams.get('token')).toBe(token);
    const opened = await get(url.origin, `/${url.search}`);
    expect(opened.status).toBe(200);
    expect(opened.headers['set-cookie']).toBeUndefined();
    expect((await get(url.origin, '/config.json')).status).toBe(401);
    expect((await get(url.origin, '/config.json', { authorization: `Bearer ${token}` })).status).toBe(200);
    expect(
      (await get(url.origin, '/config.json', { authorization: 'Bearer wrong-wrong-wrong-wrong' })).status,
    ).toBe(403);
    web.kill('SIGTERM');
    expect((await bounded(web.exited, 10_000))?.code).toBe(0);
  });

  it('--readonly: its tickets grant readonly whatever the page asks, and no server.shutdown; its address is not the token', async () => {
    const s = setup();
    const token = 'the-servers-token-0123456789';
    const server = await startServer(s.plan, s.exec, [...s.offline], 20_000, { RIBOSOME_TOKEN: token });
    const web = runCli(['web', server.url, '--port', '0', '--readonly'], {
      env: { RIBOSOME_WEB_ROOT: s.web, RIBOSOME_TOKEN: token },
    });
    await waitFor(() => /^dashboard http:\S+$/m.test(web.stdout()), 'the dashboard line', 20_000);
    const url = new URL(/^dashboard (http:\S+)$/m.exec(web.stdout())![1]!);
    const key = url.searchParams.get('token')!;
    // The viewer's key opens the dashboard, not the server.
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(key).not.toBe(token);
    expect(await upgrade(server.url, { authorization: `Bearer ${key}` })).toBe(403);
    expect((await ticketFrom(url.origin, url.origin, token)).status).toBe(403);
    const { ticket } = await ticketFrom(url.origin, url.origin, key);
    expect(ticket).toBeTruthy();
    // The page asks readandwrite with its ticket: the server grants readonly (spec 2.2: the granted mode).
    const page = await RibosomeClient.connect(server.url, {
      mode: 'readandwrite',
      origin: url.origin,
      ticket: async () => ticket!,
    });
    clients.push(page);
    expect(page.mode).toBe('readonly');
    for (const [type, data] of [
      ['codon.message', { text: 'rm -rf ~ please' }],
      ['codon.next', undefined],
      ['server.shutdown', { reason: 'from a viewer' }],
      ['dashboard.ticket', { origin: url.origin, mode: 'readandwrite' }],
    ] as const) {
      const refused = await page.request(type, data as never, 'pong').catch((e: unknown) => e);
      expect((refused as { code?: string }).code, type).toBe('INSUFFICIENT_PERMISSIONS');
    }
    // Still up and watching: the refused shutdown stopped nothing.
    await page.request('checkpoint.list', {}, 'checkpoint.list');
    await page.close();
    web.kill('SIGTERM');
    expect((await bounded(web.exited, 10_000))?.code).toBe(0);
    server.kill('SIGTERM');
    expect((await bounded(server.exited, 20_000))?.code).toBe(0);
  });
});
