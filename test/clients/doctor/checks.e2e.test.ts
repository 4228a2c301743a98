import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OPENCODE } from '../../../src/agents/opencode/opencode-cli.ts';
import { checkAgentKeys, checkCredentials } from '../../../src/clients/doctor/credentials.ts';
import { doctorProvider } from '../../../src/clients/doctor/doctor.ts';
import { checkExecutionDir } from '../../../src/clients/doctor/execution-dir.ts';
import { checkNodeVersion } from '../../../src/clients/doctor/node-version.ts';
import { checkPort } from '../../../src/clients/doctor/port.ts';
import { checkProvider, shownUrl } from '../../../src/clients/doctor/provider.ts';
import { checkAgentCli, checkClaudeCode, checkGit } from '../../../src/clients/doctor/tools.ts';
import { claudeLoginFile } from '../../../src/platform/credentials/claude-login.ts';
import { tempDir } from '../../helpers/server-process.ts';

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

describe('git and the agent CLIs', () => {
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

  it('any agent CLI: the one its variable names, with its version; missing, a warning saying how to install it', async () => {
    const bin = join(temp(), 'opencode');
    writeFileSync(bin, '#!/bin/sh\necho 1.18.33\n');
    chmodSync(bin, 0o755);
    expect(await checkAgentCli(OPENCODE, { ...process.env, RIBOSOME_OPENCODE_BIN: bin })).toEqual({
      check: 'opencode',
      status: 'ok',
      detail: `1.18.33 (${bin})`,
    });
    const missing = await checkAgentCli(OPENCODE, { ...process.env, RIBOSOME_OPENCODE_BIN: `${bin}-none` });
    expect(missing).toMatchObject({ check: 'opencode', status: 'warn', detail: `${bin}-none: not found` });
    expect(missing.fix).toMatch(/npm install -g opencode-ai\b.*RIBOSOME_OPENCODE_BIN/);
  });

  it("asks for the version with a throwaway home, removed after: nothing is left in the user's (trial 18 L4)", async () => {
    const dir = temp();
    const userHome = join(dir, 'home');
    mkdirSync(userHome);
    const seen = join(dir, 'seen');
    const bin = join(dir, 'gemini');
    // As Gemini CLI does at every start: a temp file in its directory under HOME.
    writeFileSync(
      bin,
      `#!/bin/sh\necho "$HOME|$XDG_CONFIG_HOME|$CODEX_HOME" > '${seen}'\nmkdir -p "$HOME/.gemini" && touch "$HOME/.gemini/projects.json.1.tmp"\necho 0.61.0\n`,
    );
    chmodSync(bin, 0o755);
    const env = {
      ...process.env,
      HOME: userHome,
      CODEX_HOME: join(userHome, '.codex'),
      RIBOSOME_OPENCODE_BIN: bin,
    };
    expect(await checkAgentCli(OPENCODE, env)).toMatchObject({ status: 'ok', detail: `0.61.0 (${bin})` });
    const [home = '', config, codexHome] = readFileSync(seen, 'utf8').trim().split('|');
    expect(home).not.toBe(userHome);
    expect(config).toBe(join(home, '.config'));
    expect(codexHome).toBe('');
    expect(readdirSync(userHome)).toEqual([]);
    expect(existsSync(home)).toBe(false);
  });

  it('an executable file that is no program is a warning, as `run` refuses it (retrial 18 L6)', async () => {
    const bin = join(temp(), 'hostname');
    writeFileSync(bin, 'agent wrote this');
    chmodSync(bin, 0o755);
    const result = await checkAgentCli(OPENCODE, { ...process.env, RIBOSOME_OPENCODE_BIN: bin });
    expect(result).toMatchObject({
      check: 'opencode',
      status: 'warn',
      detail: `${bin}: not an executable program (a script starting with #!, or a binary)`,
    });
    expect(result.fix).toMatch(/npm install -g opencode-ai/);
  });

  it('a --version that prints nothing is a warning, not ok', async () => {
    const bin = join(temp(), 'opencode');
    writeFileSync(bin, '#!/bin/sh\nexit 0\n');
    chmodSync(bin, 0o755);
    const result = await checkAgentCli(OPENCODE, { ...process.env, RIBOSOME_OPENCODE_BIN: bin });
    expect(result).toMatchObject({
      check: 'opencode',
      status: 'warn',
      detail: `${bin}: \`--version\` printed nothing`,
    });
    expect(result.fix).toMatch(/--version` to see what is wrong.*npm install -g opencode-ai/);
  });

  it('a --version slower than the timeout is a warning saying it timed out, and after how long: not "printed nothing", no reinstall (issue 30 trial)', async () => {
    const bin = join(temp(), 'gemini');
    // As Gemini CLI's parent process on a loaded machine: slow, and it exits 0 on the SIGTERM.
    writeFileSync(bin, "#!/bin/sh\ntrap 'kill $!; exit 0' TERM\nsleep 60 &\nwait\necho 0.61.0\n");
    chmodSync(bin, 0o755);
    const result = await checkAgentCli(OPENCODE, { ...process.env, RIBOSOME_OPENCODE_BIN: bin }, bin, 200);
    expect(result).toEqual({
      check: 'opencode',
      status: 'warn',
      detail: `${bin}: \`--version\` timed out after 0.2 s (a loaded machine starts it slowly)`,
      fix: `run \`${bin} --version\` to see how long it takes; \`ribosome doctor --version-timeout <seconds>\` waits longer`,
    });
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

describe("credentials: each agent's own key", () => {
  it('a codex- or gemini-only user with their key set is warned, not failed; the keys are named', () => {
    const codexOnly = checkCredentials({ OPENAI_API_KEY: 'sk-MARKER' });
    expect(codexOnly).toMatchObject({
      status: 'warn',
      detail:
        'none of ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN is set; OPENAI_API_KEY (codex) is set',
    });
    expect(codexOnly.fix).toMatch(/built-in, claude-code and opencode codons and sentinels need one/);
    expect(JSON.stringify(codexOnly)).not.toContain('MARKER');
    expect(checkCredentials({ OPENAI_API_KEY: 'k', GEMINI_API_KEY: 'g' }).detail).toMatch(
      /OPENAI_API_KEY \(codex\), GEMINI_API_KEY \(gemini\) are set$/,
    );
    expect(checkCredentials({ OPENAI_API_KEY: ' ' }).status).toBe('fail');
  });

  it('one line per agent found with a key of its own: codex OPENAI_API_KEY, gemini GEMINI_API_KEY, opencode ANTHROPIC_API_KEY', () => {
    const env = { OPENAI_API_KEY: 'sk-MARKER', ANTHROPIC_AUTH_TOKEN: 't' };
    const lines = checkAgentKeys(env, ['claude-code', 'codex', 'gemini', 'opencode']);
    expect(lines.map((l) => [l.check, l.status, l.detail])).toEqual([
      ['codex key', 'ok', 'OPENAI_API_KEY present'],
      ['gemini key', 'warn', 'GEMINI_API_KEY is not set'],
      [
        'opencode key',
        'warn',
        'ANTHROPIC_API_KEY is not set (ANTHROPIC_AUTH_TOKEN is, which opencode does not send)',
      ],
    ]);
    expect(lines[1]?.fix).toMatch(/^gemini codons authenticate with GEMINI_API_KEY .*agentConfig: user/);
    expect(lines[2]?.fix).toMatch(/^opencode codons authenticate with ANTHROPIC_API_KEY only/);
    expect(JSON.stringify(lines)).not.toContain('MARKER');
    // An agent whose CLI was not found gets no line (its CLI's line already warns).
    expect(checkAgentKeys(env, ['codex']).map((l) => l.check)).toEqual(['codex key']);
    expect(checkAgentKeys({ ANTHROPIC_API_KEY: 'k' }, ['opencode'])[0]?.status).toBe('ok');
  });
});

describe('credentials: a Claude Code login', () => {
  it('with no variable set, a login is a warning that it serves only claudeConfig: user', () => {
    const result = checkCredentials({}, '/home/u/.claude/.credentials.json');
    expect(result.status).toBe('warn');
    expect(result.detail).toContain('a Claude Code login is there (/home/u/.claude/.credentials.json)');
    expect(result.fix).toMatch(/only for claude-code codons with `claudeConfig: user`/);
    expect(checkCredentials({ ANTHROPIC_API_KEY: 'k' }, '/x').status).toBe('ok');
  });

  it('is found in $CLAUDE_CONFIG_DIR or ~/.claude, never read', () => {
    const home = temp();
    const config = temp();
    expect(claudeLoginFile({ HOME: home, CLAUDE_CONFIG_DIR: config })).toBeUndefined();
    mkdirSync(join(home, '.claude'));
    writeFileSync(join(home, '.claude', '.credentials.json'), '{}');
    expect(claudeLoginFile({ HOME: home })).toBe(join(home, '.claude', '.credentials.json'));
    writeFileSync(join(config, '.credentials.json'), '{}');
    expect(claudeLoginFile({ HOME: home, CLAUDE_CONFIG_DIR: config })).toBe(
      join(config, '.credentials.json'),
    );
  });
});

describe('provider', () => {
  const at = (url: string) => ({ ok: true as const, value: url, source: 'default' as const });

  it('the base URL as run resolves it: flag > SERVICE_RUNTIME_PROVIDER_BASE_URL > ANTHROPIC_BASE_URL > config file', () => {
    const env = { SERVICE_RUNTIME_PROVIDER_BASE_URL: 'http://s', ANTHROPIC_BASE_URL: 'http://b' };
    const config = { providerBaseUrl: 'http://f' };
    expect(doctorProvider({ providerBaseUrl: 'http://a', env, config })).toMatchObject({ value: 'http://a' });
    expect(doctorProvider({ env, config })).toEqual({
      ok: true,
      value: 'http://s',
      source: 'SERVICE_RUNTIME_PROVIDER_BASE_URL',
    });
    expect(doctorProvider({ env: { ANTHROPIC_BASE_URL: 'http://b' }, config })).toMatchObject({
      value: 'http://b',
      source: 'ANTHROPIC_BASE_URL',
    });
    expect(doctorProvider({ env: { ANTHROPIC_BASE_URL: '' }, config })).toMatchObject({ value: 'http://f' });
    expect(doctorProvider({ env: {} })).toEqual({
      ok: true,
      value: 'https://api.anthropic.com',
      source: 'default',
    });
  });

  it('any HTTP answer is ok; a closed port and a silent server fail', async () => {
    const up = await localServer();
    expect(await checkProvider(at(up.url))).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/HTTP 404/),
    });
    const down = await checkProvider(at(`http://127.0.0.1:${await closedPort()}`));
    expect(down).toMatchObject({ status: 'fail', detail: expect.stringMatching(/ECONNREFUSED/) });
    const silent = await localServer(false);
    expect(await checkProvider(at(silent.url), 300)).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/no answer within 0.3 s/),
    });
    expect((await checkProvider(at('not a url'))).status).toBe('fail');
  });

  it("names where the URL came from, and fails with run's sentence for one run refuses", async () => {
    const up = await localServer();
    const named = await checkProvider(doctorProvider({ env: { ANTHROPIC_BASE_URL: up.url } }));
    expect(named).toMatchObject({
      status: 'ok',
      detail: `${up.url}/ (ANTHROPIC_BASE_URL) answered HTTP 404`,
    });
    const refused = await checkProvider(
      doctorProvider({ env: { ANTHROPIC_BASE_URL: `${up.url}/?token=MARKER-q` } }),
    );
    expect(refused).toMatchObject({
      status: 'fail',
      detail: 'ANTHROPIC_BASE_URL must be an http(s) base URL: must not carry a query or fragment.',
    });
  });

  it('a password or a query value in the base URL is not shown', async () => {
    const port = await closedPort();
    for (const url of [
      `http://me:MARKER-pw@127.0.0.1:${port}`,
      `http://127.0.0.1:${port}/x?api_key=MARKER-k&token=MARKER-t&plain=MARKER-p`,
      `http://127.0.0.1:${port}/x;jsessionid=MARKER-s`,
    ]) {
      const result = await checkProvider(at(url));
      expect(result.status).toBe('fail');
      expect(JSON.stringify(result)).not.toContain('MARKER');
    }
    expect(shownUrl(new URL('http://u:p@h.test/x?api_key=s&b=2'))).toBe(
      'http://h.test/x?api_key=[REDACTED]&b=[REDACTED]',
    );
  });

  it('a port fetch refuses ("bad port") says what it means, without trying it', async () => {
    const result = await checkProvider(at('http://127.0.0.1:6000'));
    expect(result).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining(`port 6000 is one Node's fetch refuses to connect to ("bad port")`),
      fix: expect.stringContaining('another port'),
    });
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
