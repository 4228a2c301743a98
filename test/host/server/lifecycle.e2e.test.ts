import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { EMPTY_PLAN, runCli, startServer, tempDir } from '../../helpers/server-process.ts';

const { temps, clients } = e2eResources();

function execDir(): string {
  const t = tempDir();
  temps.push(t);
  return join(t.path, 'exec');
}
async function connect(
  url: string,
  mode: 'readonly' | 'readandwrite' = 'readonly',
  sendPreviousEvents = false,
) {
  const c = await RibosomeClient.connect(url, { mode, sendPreviousEvents });
  clients.push(c);
  return c;
}

describe('ribosome run --headless', () => {
  it('prints exactly one listening line, keeps its files in .ribosome, and shuts down cleanly on request', async () => {
    const dir = execDir();
    const server = await startServer(EMPTY_PLAN, dir);
    expect(server.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    expect(server.port).toBeGreaterThan(0);
    expect(existsSync(join(dir, '.ribosome/ribosome.db'))).toBe(true);
    const lock = JSON.parse(readFileSync(join(dir, '.ribosome/runtime.lock'), 'utf8'));
    expect(lock).toMatchObject({ pid: server.child.pid, port: server.port });
    expect(Date.parse(lock.heartbeat)).not.toBeNaN();

    const writer = await connect(server.url, 'readandwrite');
    const reader = await connect(server.url, 'readonly');
    const closes = [writer, reader].map(
      (c) => new Promise<number>((resolve) => c.onStateChange((s) => s === 'closed' && resolve(1001))),
    );
    reader.send('server.shutdown', { reason: 'test over' });
    const exit = await server.exited;
    await Promise.all(closes);
    expect(exit.code).toBe(0);
    expect(server.stdout()).toBe(`listening ${server.url}\n`);
    expect(existsSync(join(dir, '.ribosome/runtime.lock'))).toBe(false);
    const log = readFileSync(join(dir, '.ribosome/logs/server.log'), 'utf8').trim().split('\n');
    expect(log.length).toBeGreaterThan(2);
    for (const line of log) expect(() => JSON.parse(line)).not.toThrow();
    expect(log.some((l) => JSON.parse(l).msg === 'stopped')).toBe(true);
  });

  it('closes clients with 1001 when it shuts down', async () => {
    const server = await startServer(EMPTY_PLAN, execDir());
    const { WebSocket } = await import('ws');
    const ws = new WebSocket(server.url);
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ type: 'handshake', data: { mode: 'readonly' } }));
    await new Promise((r) => ws.once('message', r));
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send(JSON.stringify({ id: 'bye', type: 'server.shutdown', data: { reason: 'done' } }));
    expect(await closed).toBe(1001);
    expect((await server.exited).code).toBe(0);
  });

  it('keeps events, history and totalEvents across a restart on the same execution directory', async () => {
    const dir = execDir();
    const first = await startServer(EMPTY_PLAN, dir);
    const c1 = await connect(first.url, 'readonly', true);
    const firstIds = c1.handshake.eventHistory.map((e) => e.id);
    expect(firstIds.length).toBeGreaterThan(0);
    const total1 = c1.handshake.totalEvents;
    c1.send('server.shutdown');
    expect((await first.exited).code).toBe(0);

    const second = await startServer(EMPTY_PLAN, dir);
    const c2 = await connect(second.url, 'readonly', true);
    expect(c2.handshake.totalEvents).toBeGreaterThan(total1);
    // eventHistory holds the latest run only: with nothing to run, the restart began none, so it is
    // the first server's run, going on with this server's events; the journal holds them all.
    expect(c2.handshake.eventHistory.map((e) => e.id)).toContain(firstIds[0]);
    expect(c2.handshake.eventHistory.length).toBeGreaterThan(firstIds.length);
    // The server listens before its startup idle is journaled: once it is, the count holds still.
    const idled = c2.handshake.eventHistory.slice(firstIds.length).some((e) => e.type === 'server.idle');
    if (!idled) await c2.next('server.idle', () => true, 10_000);
    const c3 = await connect(second.url, 'readonly', true);
    const history = await c3.syncHistory();
    const ids = history.map((e) => e.id);
    for (const id of firstIds) expect(ids).toContain(id);
    expect(history.length).toBe(c3.handshake.totalEvents);
  });

  it('after SIGKILL keeps every event a client saw, and takes over the stale lock', async () => {
    const dir = execDir();
    const first = await startServer(EMPTY_PLAN, dir);
    const c = await connect(first.url, 'readonly', true);
    const seen = c.handshake.eventHistory.map((e) => e.id);
    first.kill('SIGKILL');
    await first.exited;
    expect(existsSync(join(dir, '.ribosome/runtime.lock'))).toBe(true);

    const second = await startServer(EMPTY_PLAN, dir);
    const c2 = await connect(second.url);
    const ids = (await c2.syncHistory()).map((e) => e.id);
    for (const id of seen) expect(ids).toContain(id);
    const lock = JSON.parse(readFileSync(join(dir, '.ribosome/runtime.lock'), 'utf8'));
    expect(lock.pid).toBe(second.child.pid);
  });

  it('refuses a second server on the same execution directory', async () => {
    const dir = execDir();
    const first = await startServer(EMPTY_PLAN, dir);
    const second = runCli(['run', EMPTY_PLAN, '--headless', '--execution', dir]);
    const exit = await second.exited;
    expect(exit.code).toBe(3);
    expect(second.stderr()).toMatch(/another Ribosome server \(pid \d+, ws:\/\/127\.0\.0\.1:\d+/);
    expect(second.stdout()).toBe('');
    // The first one is untouched.
    const c = await connect(first.url);
    c.send('ping');
    await c.next('pong');
  });

  it('takes over a lock whose process is gone', async () => {
    const dir = execDir();
    const boot = await startServer(EMPTY_PLAN, dir);
    boot.kill('SIGTERM');
    await boot.exited;
    const now = new Date().toISOString();
    writeFileSync(
      join(dir, '.ribosome/runtime.lock'),
      JSON.stringify({ pid: 2 ** 22 + 12345, port: 1, host: '127.0.0.1', startTime: now, heartbeat: now }),
    );
    const server = await startServer(EMPTY_PLAN, dir);
    expect(JSON.parse(readFileSync(join(dir, '.ribosome/runtime.lock'), 'utf8')).pid).toBe(server.child.pid);
  });

  it('fails clearly on a port in use and on a bad port', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const taken = runCli([
        'run',
        EMPTY_PLAN,
        '--headless',
        '--execution',
        execDir(),
        '--port',
        String(port),
      ]);
      expect((await taken.exited).code).toBe(1);
      expect(taken.stderr()).toMatch(/EADDRINUSE|in use/);
      const bad = runCli(['run', EMPTY_PLAN, '--headless', '--execution', execDir(), '--port', 'eighty']);
      expect((await bad.exited).code).toBe(2);
      expect(bad.stderr()).toMatch(/--port must be an integer/);
    } finally {
      blocker.close();
    }
  });
});
