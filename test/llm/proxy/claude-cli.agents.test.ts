import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startProxyForServer } from '../../../src/llm/proxy/start-for-server.ts';
import { resolveProxyConfig } from '../../../src/plan/config/proxy-config.ts';
import { type FakeAnthropic, startFakeAnthropic } from './helpers/fake-anthropic.ts';
import { captureLogger, linesTagged } from './helpers/logs.ts';
import { freePort } from './helpers/upstream.ts';

const claudeBin = fileURLToPath(new URL('../../../node_modules/.bin/claude', import.meta.url));
const SCRIPTED = 'Scripted answer, relayed through the Ribosome proxy.';
const BOUND_MS = 60_000;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Ends the whole process group: the CLI may have started children of its own. */
function killGroup(child: ChildProcess) {
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

async function runClaude(
  baseUrl: string,
  prompt: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const home = await mkdtemp(join(tmpdir(), 'ribosome-proxy-claude-'));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const child = spawn(
    claudeBin,
    ['-p', '--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-4-5'],
    {
      cwd: home,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Built from scratch so nothing of the outer environment (a real key, a real base URL) leaks in.
      env: {
        PATH: process.env.PATH,
        ANTHROPIC_BASE_URL: baseUrl,
        ANTHROPIC_API_KEY: 'test',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        HOME: home,
        CLAUDE_CONFIG_DIR: home,
        IS_SANDBOX: '1',
        CLAUDE_CODE_MAX_RETRIES: '0',
      },
    },
  );
  cleanups.push(() => killGroup(child));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  child.stdin.end(prompt);
  const timer = setTimeout(() => killGroup(child), BOUND_MS - 5_000);
  try {
    const [code] = (await once(child, 'close')) as [number | null];
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

describe('the real Claude Code CLI through the proxy', () => {
  it(
    'completes a scripted session',
    async () => {
      const fake: FakeAnthropic = await startFakeAnthropic(SCRIPTED);
      cleanups.push(() => fake.close());
      const config = resolveProxyConfig({
        cli: { proxy: true, providerBaseUrl: fake.url },
        env: {},
        file: {},
      });
      if (!config.ok) throw new Error(config.error.message);
      const { logger, lines } = captureLogger();
      const port = await freePort();
      const handle = await startProxyForServer({
        config: config.value,
        mainPort: port - 1,
        logger,
        configDir: tmpdir(),
      });
      if (!handle) throw new Error('proxy not started');
      cleanups.push(() => handle.stop());

      const run = await runClaude(handle.url, 'Say the scripted line.');
      const events = run.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map(
          (line) =>
            JSON.parse(line) as { type: string; subtype?: string; is_error?: boolean; result?: string },
        );
      const result = events.at(-1);
      expect(result, run.stderr).toMatchObject({
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: SCRIPTED,
      });
      expect(run.code).toBe(0);

      // The provider saw the CLI's Messages call, forwarded by the proxy (Host rewritten for the target).
      const calls = fake.seen.filter(
        (seen) => seen.method === 'POST' && seen.url === '/v1/messages?beta=true',
      );
      expect(calls.length).toBeGreaterThan(0);
      expect(calls[0]!.headers.host).toBe(new URL(fake.url).host);
      expect(calls[0]!.headers['x-api-key']).toBe('test');
      expect(linesTagged(lines, '[LOGGING-MIDDLEWARE] request')).toContainEqual(
        expect.objectContaining({
          method: 'POST',
          url: '/v1/messages?beta=true',
          model: 'claude-sonnet-4-5',
          stream: true,
        }),
      );
      expect(linesTagged(lines, '[LOGGING-MIDDLEWARE] response')).toContainEqual(
        expect.objectContaining({ url: '/v1/messages?beta=true', status: 200 }),
      );
      expect(linesTagged(lines, '[PROXY-ERROR]')).toEqual([]);
    },
    BOUND_MS,
  );
});
