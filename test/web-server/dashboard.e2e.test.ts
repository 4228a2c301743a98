import { readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RefusedUpgradeError, RibosomeClient } from '../../src/client/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { simplePlan, writePlanAndScript } from '../helpers/plans.ts';
import { waitFor } from '../helpers/processes.ts';
import { bounded, runCli, startServer, tempDir } from '../helpers/server-process.ts';
import { fakeDashboard, get, upgrade } from './helpers.ts';

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
  it('beyond loopback: generated, printed once, required on the upgrade (401/403), three ways in, never logged', async () => {
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
    const named = `ribosome_token_${server.port}`;
    expect(await upgrade(url, { cookie: `${named}=not-the-token-at-all` })).toBe(403);
    // Only the cookie named for this server's port counts: not the plain name, not another port's.
    expect(await upgrade(url, { cookie: `ribosome_token=${token}` })).toBe(401);
    expect(await upgrade(url, { cookie: `ribosome_token_${server.port + 1}=${token}` })).toBe(401);
    expect(await upgrade(`${url}/?token=nope-nope-nope-nope`)).toBe(403);
    expect(await upgrade(url, { authorization: `Bearer ${token}` })).toBe('open');
    expect(await upgrade(url, { cookie: `other=1; ${named}=${token}` })).toBe('open');
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
    // The page's origin may open the WebSocket.
    expect(await upgrade(server.url, { origin: url.origin })).toBe('open');
    server.kill('SIGTERM');
    expect((await bounded(server.exited, 20_000))?.code).toBe(0);
    await expect(get(base, '/')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('with a token: 401 without the cookie, /?token= sets it and redirects, the page origin connects; never logged', async () => {
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
    for (const path of ['/', '/app.js', '/config.json']) {
      const refused = await get(base, path);
      expect(refused.status, path).toBe(401);
      expect(refused.body).toContain('Open the address the server printed');
    }
    expect((await get(base, '/?token=wrong-wrong-wrong-wrong')).status).toBe(403);
    const opened = await get(base, `/?token=${token}`);
    expect(opened.status).toBe(302);
    expect(opened.headers.location).toBe('/');
    const setCookie = String(opened.headers['set-cookie']);
    // Named for the WebSocket server's port, which the page's upgrades carry it to.
    expect(setCookie).toMatch(
      new RegExp(`^ribosome_token_${server.port}=[^;]+; HttpOnly; SameSite=Strict; Path=/$`),
    );
    const cookie = setCookie.split(';')[0]!;
    expect((await get(base, '/', { cookie })).body).toContain('fake dashboard');
    // A stale or wrong token in that cookie: 403, not the 401 "Token needed" page.
    const stale = await get(base, '/', { cookie: `ribosome_token_${server.port}=wrong-wrong-wrong-wrong` });
    expect(stale.status).toBe(403);
    expect(stale.body).toContain('Wrong token');
    const config = JSON.parse(
      (await get(base, '/config.json', { cookie, host: `box.example:${url.port}` })).body,
    );
    expect(config).toEqual({ servers: [{ url: `ws://box.example:${server.port}` }], readonly: false });
    // The page, reached as box.example, opens the WebSocket there with its cookie; another site cannot.
    const ws = local(server.url);
    expect(
      await upgrade(ws, {
        cookie,
        origin: `http://box.example:${url.port}`,
        host: `box.example:${server.port}`,
      }),
    ).toBe('open');
    expect(
      await upgrade(ws, {
        cookie,
        origin: `http://evil.example:${url.port}`,
        host: `box.example:${server.port}`,
      }),
    ).toBe(403);
    expect(
      await upgrade(ws, { origin: `http://box.example:${url.port}`, host: `box.example:${server.port}` }),
    ).toBe(401);
    server.kill('SIGTERM');
    expect((await bounded(server.exited, 20_000))?.code).toBe(0);
    expect(internalFiles(s.exec)).not.toContain(token);
  });

  it('two servers with their own tokens on one host: one browser holds both cookies and watches both', async () => {
    const tokens = ['token-of-server-a-0123456789', 'token-of-server-b-0123456789'];
    const servers = [];
    for (const token of tokens) {
      const s = setup();
      const server = await startServer(s.plan, s.exec, [...s.offline, '--web', '--web-port', '0'], 20_000, {
        RIBOSOME_WEB_ROOT: s.web,
        RIBOSOME_TOKEN: token,
      });
      servers.push({ server, dashboard: (await dashboardLine(server.stderr)).url });
    }
    // Each printed address hands over its cookie; a browser sends every cookie of the host to both.
    const jar: string[] = [];
    for (const { dashboard } of servers) {
      const opened = await get(dashboard.origin, `${dashboard.pathname}${dashboard.search}`);
      expect(opened.status).toBe(302);
      jar.push(String(opened.headers['set-cookie']).split(';')[0]!);
    }
    expect(jar[0]).not.toBe(jar[1]);
    const cookie = jar.join('; ');
    for (const { server, dashboard } of servers) {
      expect((await get(dashboard.origin, '/', { cookie })).status).toBe(200);
      expect(await upgrade(server.url, { cookie, origin: dashboard.origin })).toBe('open');
    }
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

  it('with --token: the printed address sets the cookie of every listed server port', async () => {
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
    expect((await get(url.origin, '/')).status).toBe(401);
    const opened = await get(url.origin, `/${url.search}`);
    expect(opened.status).toBe(302);
    const cookies = opened.headers['set-cookie'] as string[];
    expect(cookies.map((c) => c.split(';')[0])).toEqual([
      `ribosome_token_7001=${token}`,
      `ribosome_token_7002=${token}`,
    ]);
    expect((await get(url.origin, '/', { cookie: cookies[1]!.split(';')[0]! })).status).toBe(200);
    expect(
      (await get(url.origin, '/', { cookie: 'ribosome_token_7001=wrong-wrong-wrong-wrong' })).status,
    ).toBe(403);
    web.kill('SIGTERM');
    expect((await bounded(web.exited, 10_000))?.code).toBe(0);
  });
});
