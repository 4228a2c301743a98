import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { simplePlan, writePlanAndScript, writeTurns } from '../../helpers/plans.ts';
import { runCli, startServer, tempDir } from '../../helpers/server-process.ts';

const { temps, clients } = e2eResources();

async function freePortPair(): Promise<number> {
  for (;;) {
    const a = createServer();
    await new Promise<void>((r) => a.listen(0, '127.0.0.1', () => r()));
    const port = (a.address() as { port: number }).port;
    await new Promise((r) => a.close(r));
    if (port < 65535) return port;
  }
}

describe('the proxy with the main server', () => {
  it('starts on port + 1 with --proxy, carries the agents traffic, and stops with the server', async () => {
    const t = tempDir();
    temps.push(t);
    const files = writePlanAndScript(t.path, simplePlan(['one']), `turns:\n${writeTurns('a.txt', 'A')}`);
    const exec = join(t.path, 'exec');
    const server = await startServer(files.plan, exec, ['--scripted-provider', files.script, '--proxy']);
    const proxyUrl = `http://127.0.0.1:${server.port + 1}`;
    const health = await fetch(`${proxyUrl}/health`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('Ribosome Proxy OK');
    const c = await RibosomeClient.connect(server.url, { mode: 'readonly', sendPreviousEvents: true });
    clients.push(c);
    expect(c.serverInfo.proxy).toEqual({ enabled: true, url: proxyUrl });
    if (!c.handshake.eventHistory.some((e) => e.type === 'server.idle')) {
      await c.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    }
    c.send('server.shutdown');
    expect((await server.exited).code).toBe(0);
    // The agent's requests went through the pipeline: LoggingMiddleware saw them.
    const log = readFileSync(join(exec, '.ribosome/logs/server.log'), 'utf8');
    expect(log).toMatch(/\[LOGGING-MIDDLEWARE\]/);
    expect(log).toMatch(/\[PROXY\] listening/);
    expect(log).toMatch(/"model":"claude-sonnet-4-5"/);
    await expect(fetch(`${proxyUrl}/health`)).rejects.toThrow();
  });

  it('refuses to start when port + 1 is taken, saying so', async () => {
    const t = tempDir();
    temps.push(t);
    const port = await freePortPair();
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(port + 1, '127.0.0.1', () => r()));
    try {
      const proc = runCli([
        'run',
        join(import.meta.dirname, '../../../examples/empty/plan.yaml'),
        '--headless',
        '--proxy',
        '--port',
        String(port),
        '--execution',
        join(t.path, 'exec'),
      ]);
      const exit = await proc.exited;
      expect(exit.code).toBe(1);
      expect(proc.stderr()).toMatch(new RegExp(`${port + 1}`));
      expect(proc.stderr()).toMatch(/in use|taken/i);
      expect(proc.stdout()).toBe('');
    } finally {
      blocker.close();
    }
  });

  it('refuses an invalid provider URL at start', async () => {
    const t = tempDir();
    temps.push(t);
    const proc = runCli(
      [
        'run',
        join(import.meta.dirname, '../../../examples/empty/plan.yaml'),
        '--headless',
        '--proxy',
        '--execution',
        join(t.path, 'exec'),
      ],
      { env: { SERVICE_RUNTIME_PROVIDER_BASE_URL: 'ftp://nowhere' } },
    );
    expect((await proc.exited).code).toBe(2);
    expect(proc.stderr()).toMatch(/SERVICE_RUNTIME_PROVIDER_BASE_URL/);
  });
});
