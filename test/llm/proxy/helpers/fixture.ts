import { afterAll, afterEach, beforeAll } from 'vitest';
import type { ProxyRunnerOptions } from '../../../../src/llm/proxy/runner.ts';
import { startProxy, type TestProxy } from './proxy.ts';
import { echo, startUpstream, type TestUpstream } from './upstream.ts';

/**
 * One test upstream for the file, and proxies in front of it that a test starts and that stop after
 * it (the upstream then echoes again and forgets what it received). Call at the top of a file.
 */
export function proxyFixture() {
  let upstream: TestUpstream | undefined;
  const proxies: TestProxy[] = [];
  beforeAll(async () => {
    upstream = await startUpstream();
  });
  afterAll(async () => {
    await upstream?.close();
  });
  afterEach(async () => {
    await Promise.all(proxies.splice(0).map((proxy) => proxy.stop()));
    if (!upstream) return;
    upstream.received.length = 0;
    upstream.handle(echo);
  });
  return {
    get upstream(): TestUpstream {
      if (!upstream) throw new Error('the upstream starts before the tests');
      return upstream;
    },
    async start(options: Partial<Omit<ProxyRunnerOptions, 'targetUrl' | 'logger'>> = {}): Promise<TestProxy> {
      const proxy = await startProxy(this.upstream.url, options);
      proxies.push(proxy);
      return proxy;
    },
  };
}
