import { readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkCredentials } from '../../src/doctor/credentials.ts';
import { providerBaseUrlOf } from '../../src/doctor/doctor.ts';
import { checkExecutionDir } from '../../src/doctor/execution-dir.ts';
import { checkNodeVersion } from '../../src/doctor/node-version.ts';
import { checkPort } from '../../src/doctor/port.ts';
import { checkProvider } from '../../src/doctor/provider.ts';
import { checkClaudeCode, checkGit } from '../../src/doctor/tools.ts';
import { tempDir } from '../helpers/server-process.ts';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function temp(): string {
  const t = tempDir();
  cleanups.push(t.remove);
  return t.path;
}

/** A local HTTP server on 127.0.0.1, port 0; `answer: false` accepts and never answers. */
async function localServer(answer = true): Promise<{ url: string; port: number }> {
  const server: Server = createServer((_req, res) => {
    if (answer) res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port };
}

async function closedPort(): Promise<number> {
  const { port } = await localServer();
  await cleanups.pop()!();
  return port;
}

describe('node version', () => {
  it.each([
    ['24.21.0', '>=22.18', 'ok'],
    ['22.18.0', '>=22.18', 'ok'],
    ['22.17.9', '>=22.18', 'fail'],
    ['20.19.0', '>=22.18', 'fail'],
    ['24.0.0', '^24', 'warn'],
  ] as const)('v%s against %s is %s', (version, range, status) => {
    const result = checkNodeVersion(version, range);
    expect(result.status).toBe(status);
    if (status === 'fail') expect(result.fix).toMatch(/install Node 22\.18\.0 or newer/);
  });
});

describe('git and Claude Code', () => {
  it('git found on PATH gives its version; a PATH without git fails with a fix', async () => {
    expect(await checkGit(process.env)).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/^git version/),
    });
    const empty = temp();
    const result = await checkGit({ ...process.env, PATH: empty });
    expect(result).toMatchObject({ status: 'fail', detail: expect.stringContaining('not found') });
    expect(result.fix).toMatch(/install git/);
  });

  it('a missing Claude Code binary is a warning, not a failure', async () => {
    const result = await checkClaudeCode(join(temp(), 'no-claude'), process.env);
    expect(result.status).toBe('warn');
    expect(result.fix).toMatch(/npm install @anthropic-ai\/claude-code/);
    expect(result.fix).toMatch(/agent: builtin` need none/);
  });
});

describe('credentials', () => {
  it('names the variables present and absent, never their values; none set fails', () => {
    const marker = 'sk-ant-MARKER-7f3a9c';
    const result = checkCredentials({ ANTHROPIC_AUTH_TOKEN: marker, ANTHROPIC_API_KEY: '' });
    expect(result.status).toBe('ok');
    expect(result.detail).toBe(
      'present: ANTHROPIC_AUTH_TOKEN; absent: ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN',
    );
    expect(JSON.stringify(result)).not.toContain('MARKER');
    const none = checkCredentials({ ANTHROPIC_API_KEY: '  ' });
    expect(none.status).toBe('fail');
    expect(none.fix).toMatch(/export ANTHROPIC_API_KEY/);
  });
});

describe('provider', () => {
  it('the base URL: --provider-base-url, else ANTHROPIC_BASE_URL, else the Anthropic API', () => {
    expect(providerBaseUrlOf('http://a', { ANTHROPIC_BASE_URL: 'http://b' })).toBe('http://a');
    expect(providerBaseUrlOf(undefined, { ANTHROPIC_BASE_URL: 'http://b' })).toBe('http://b');
    expect(providerBaseUrlOf(undefined, { ANTHROPIC_BASE_URL: '' })).toBe('https://api.anthropic.com');
  });

  it('any HTTP answer is ok; a closed port and a silent server fail', async () => {
    const up = await localServer();
    expect(await checkProvider(up.url)).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/HTTP 404/),
    });
    const down = await checkProvider(`http://127.0.0.1:${await closedPort()}`);
    expect(down).toMatchObject({ status: 'fail', detail: expect.stringMatching(/ECONNREFUSED/) });
    const silent = await localServer(false);
    expect(await checkProvider(silent.url, 300)).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/no answer within 0.3 s/),
    });
    expect((await checkProvider('not a url')).status).toBe('fail');
  });

  it('a password in the base URL is not shown', async () => {
    const result = await checkProvider(`http://me:MARKER-pw@127.0.0.1:${await closedPort()}`);
    expect(result.status).toBe('fail');
    expect(JSON.stringify(result)).not.toContain('MARKER');
  });
});

describe('execution directory', () => {
  it('a writable directory, or a missing one under a writable parent, is ok and left clean', () => {
    const dir = temp();
    expect(checkExecutionDir(dir)).toMatchObject({ status: 'ok', detail: `${dir} writable` });
    expect(checkExecutionDir(join(dir, 'a', 'b')).detail).toMatch(/not there yet/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a path whose parent is a regular file fails (even for root)', () => {
    const dir = temp();
    writeFileSync(join(dir, 'file'), 'x');
    const result = checkExecutionDir(join(dir, 'file', 'exec'));
    expect(result.status).toBe('fail');
    expect(result.detail).toMatch(/is not a directory/);
  });

  it('a directory it cannot write into fails', () => {
    // /proc/1 refuses new files to everyone, root too.
    expect(checkExecutionDir('/proc/1').status).toBe('fail');
  });
});

describe('port', () => {
  it('a port held by a listening server fails; a free one and 0 are ok', async () => {
    const held = await localServer();
    const result = await checkPort('127.0.0.1', held.port);
    expect(result).toMatchObject({ status: 'fail', detail: expect.stringMatching(/EADDRINUSE/) });
    expect(result.fix).toMatch(/another --port/);
    expect((await checkPort('127.0.0.1', await closedPort())).status).toBe('ok');
    expect((await checkPort('127.0.0.1', 0)).status).toBe('ok');
  });
});
