import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRuntime } from '../../../src/host/server/runtime.ts';
import { startProxyForServer } from '../../../src/llm/proxy/start-for-server.ts';
import { resolveProxyConfig } from '../../../src/plan/config/proxy-config.ts';
import { resolveServerSettings } from '../../../src/plan/config/server-config.ts';
import { BareEngine } from '../../helpers/bare-engine.ts';
import { tempDir } from '../../helpers/server-process.ts';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A port another process holds for the whole test (here: this one, as a plain TCP server). */
async function hold(): Promise<number> {
  const blocker = net.createServer();
  blocker.listen(0, '127.0.0.1');
  await once(blocker, 'listening');
  cleanups.push(() => new Promise((r) => blocker.close(r)));
  return (blocker.address() as AddressInfo).port;
}

describe('a dynamic main port whose + 1 is taken', () => {
  it('listens again on another pair, so the proxy still sits at main port + 1', async () => {
    const held = await hold();
    const temp = tempDir();
    cleanups.push(() => temp.remove());
    const settings = resolveServerSettings({ port: 0 });
    const proxy = resolveProxyConfig({ cli: { proxy: true }, env: {}, file: {} });
    if (!settings.ok || !proxy.ok) throw new Error('bad test settings');
    const runtime = await startRuntime({
      executionDir: temp.path,
      dataDir: join(temp.path, 'data'),
      settings: settings.value,
      createEngine: ({ bus }) => new BareEngine({ bus, plan: { name: 'test', codons: [] } }),
      // The first attempt collides for sure: its + 1 is held (or, should another process hold
      // held - 1 itself, its main port is taken); later attempts let the OS choose.
      dynamicPort: (attempt) => (attempt === 1 ? held - 1 : 0),
      companions: (start) =>
        start(({ logger, port }) =>
          startProxyForServer({
            config: { ...proxy.value, providerBaseUrl: 'http://127.0.0.1:9' },
            mainPort: port,
            logger,
            configDir: temp.path,
          }),
        ),
    });
    const proxyUrl = runtime.companions?.url;
    let stopped = false;
    cleanups.push(() => (stopped ? undefined : runtime.stop('test done')));
    expect(runtime.port).not.toBe(held - 1);
    expect(proxyUrl).toBe(`http://127.0.0.1:${runtime.port + 1}`);
    expect(await (await fetch(`${proxyUrl}/health`)).text()).toBe('Ribosome Proxy OK');
    await runtime.stop('test done');
    stopped = true;
    const log = readFileSync(runtime.layout.logFile, 'utf8');
    expect(log).toMatch(/a port beside the dynamic main port is taken; listening again on another/);
  });
});
