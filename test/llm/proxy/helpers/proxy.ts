import { ProxyRunner, type ProxyRunnerOptions } from '../../../../src/llm/proxy/runner.ts';
import { captureLogger, type LogLine } from './logs.ts';

export type TestProxy = { url: string; runner: ProxyRunner; lines: LogLine[]; stop(): Promise<void> };

/** A proxy runner on 127.0.0.1, port 0, logging into an array. */
export async function startProxy(
  targetUrl: string,
  options: Partial<Omit<ProxyRunnerOptions, 'targetUrl' | 'logger'>> = {},
): Promise<TestProxy> {
  const { logger, lines } = captureLogger();
  const runner = new ProxyRunner({
    mode: 'passthrough',
    port: 0,
    idleTimeoutMs: 0,
    ...options,
    targetUrl,
    logger,
  });
  const url = await runner.start();
  return { url, runner, lines, stop: () => runner.stop() };
}
