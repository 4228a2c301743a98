import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DoctorReport } from '../../../src/clients/doctor/check-result.ts';
import { killAll, ROOT, runCli, tempDir } from '../../helpers/server-process.ts';

/** `ribosome doctor` as a user runs it: the table or --json, exit 1 on a failure, no secret printed. */

const MARKER = 'sk-ant-DOCTOR-MARKER-41c2e9';
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  killAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function listening(): Promise<number> {
  const server: Server = createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

/** Every credential variable unset (the test machine's own may be set), plus `extra`. */
function env(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ANTHROPIC_API_KEY: '',
    ANTHROPIC_AUTH_TOKEN: '',
    CLAUDE_CODE_OAUTH_TOKEN: '',
    OPENAI_API_KEY: '',
    GEMINI_API_KEY: '',
    ANTHROPIC_BASE_URL: '',
    SERVICE_RUNTIME_PROVIDER_BASE_URL: '',
    // No Claude Code login of the machine's user is seen.
    HOME: '/nonexistent-home',
    CLAUDE_CONFIG_DIR: '',
    // Claude Code missing: a warning, and no slow `claude --version` in every run.
    RIBOSOME_CLAUDE_BIN: '/nonexistent/claude',
    // The other agent CLIs too (found on PATH or not, as the machine has them).
    RIBOSOME_OPENCODE_BIN: '/nonexistent/opencode',
    RIBOSOME_GEMINI_BIN: '/nonexistent/gemini',
    RIBOSOME_CODEX_BIN: '/nonexistent/codex',
    ...extra,
  };
}

async function doctor(args: string[], extra: NodeJS.ProcessEnv) {
  const proc = runCli(['doctor', ...args], { env: env(extra) });
  const exit = await proc.exited;
  return { code: exit.code, stdout: proc.stdout(), stderr: proc.stderr() };
}

describe('ribosome doctor', () => {
  it('all well (agent CLIs missing only warn): exit 0, a table with every check, no secret printed', async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    const provider = await listening();
    const args = ['--execution', t.path, '--provider-base-url', `http://127.0.0.1:${provider}`];
    const table = await doctor(args, { ANTHROPIC_API_KEY: MARKER });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^check\s+status\s+detail\s+fix/);
    for (const check of ['node', 'git', 'credentials', 'provider', 'execution dir', 'port'])
      expect(table.stdout).toMatch(new RegExp(`^${check}\\s+ok\\s`, 'm'));
    expect(table.stdout).toMatch(/^claude code\s+warn\s/m);
    expect(table.stdout).toMatch(
      /^opencode\s+warn\s+\/nonexistent\/opencode: not found\s+install it .*npm install -g opencode-ai/m,
    );
    expect(table.stdout).toMatch(
      /^codex cli\s+warn\s+\/nonexistent\/codex: not found\s+install it .*npm install -g @openai\/codex/m,
    );
    expect(table.stdout).toMatch(/present: ANTHROPIC_API_KEY/);
    expect(table.stdout).toMatch(/all checks passed \(4 warnings\)/);
    expect(table.stdout + table.stderr).not.toContain('MARKER');

    const json = await doctor([...args, '--json'], { CLAUDE_CODE_OAUTH_TOKEN: MARKER });
    expect(json.code).toBe(0);
    const report = DoctorReport.parse(JSON.parse(json.stdout));
    expect(report.ok).toBe(true);
    expect(json.stdout + json.stderr).not.toContain('MARKER');
  });

  it('offline (--scripted-provider, as the demo runs): no credential, no network, every check ok or warn', async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    const demo = join(ROOT, 'examples/scripts/demo.yaml');
    // A provider no one serves: offline, it is not asked.
    const offline = { ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' };
    const ran = await doctor(['--execution', t.path, '--scripted-provider', demo, '--json'], offline);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const byName = Object.fromEntries(
      DoctorReport.parse(JSON.parse(ran.stdout)).checks.map((c) => [c.check, c]),
    );
    expect(byName.credentials).toMatchObject({ status: 'ok', detail: expect.stringMatching(/none needed/) });
    expect(byName.provider).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/^scripted provider .*demo\.yaml: 4 track\(s\), \d+ default turn\(s\)$/),
    });
    // Without it, the same machine fails both.
    const online = await doctor(['--execution', t.path, '--json'], offline);
    expect(online.code).toBe(1);
    const failed = DoctorReport.parse(JSON.parse(online.stdout)).checks.filter((c) => c.status === 'fail');
    expect(failed.map((c) => c.check)).toEqual(['credentials', 'provider']);
    // A script that is not one fails the provider check at its line, and says how to see every problem.
    const bad = join(t.path, 'bad.yaml');
    writeFileSync(bad, 'turns:\n  - { nope: 1 }\n');
    const invalid = await doctor(['--execution', t.path, '--scripted-provider', bad, '--json'], offline);
    expect(invalid.code).toBe(1);
    const provider = DoctorReport.parse(JSON.parse(invalid.stdout)).checks.find(
      (c) => c.check === 'provider',
    );
    expect(provider).toMatchObject({ status: 'fail', detail: expect.stringMatching(/bad\.yaml:2:\d+: /) });
    expect(provider?.fix).toMatch(/ribosome validate .*bad\.yaml/);
  });

  it('a codex-only user with OPENAI_API_KEY passes: credentials warn, the codex key is named', async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    const provider = await listening();
    const args = ['--execution', t.path, '--provider-base-url', `http://127.0.0.1:${provider}`, '--json'];
    // node stands in for the Codex CLI: it answers --version.
    const result = await doctor(args, { OPENAI_API_KEY: MARKER, RIBOSOME_CODEX_BIN: process.execPath });
    expect(result.code, result.stderr).toBe(0);
    const checks = DoctorReport.parse(JSON.parse(result.stdout)).checks;
    const byName = Object.fromEntries(checks.map((c) => [c.check, c]));
    expect(byName.credentials).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('OPENAI_API_KEY (codex) is set'),
    });
    expect(byName['codex key']).toMatchObject({ status: 'ok', detail: 'OPENAI_API_KEY present' });
    // No line for agents whose CLI is missing.
    expect(byName['gemini key']).toBeUndefined();
    expect(result.stdout + result.stderr).not.toContain('MARKER');
  });

  it('each check failing: no git on PATH, no credentials, provider down, directory under a file, port held', async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    // A PATH with only what bin/ribosome's shell needs (dirname), and no git.
    const bin = join(t.path, 'bin');
    mkdirSync(bin);
    const dirname = (process.env.PATH ?? '')
      .split(delimiter)
      .map((dir) => join(dir, 'dirname'))
      .find((path) => existsSync(path));
    symlinkSync(dirname!, join(bin, 'dirname'));
    writeFileSync(join(t.path, 'file'), 'x');
    const held = await listening();
    const down = await listening();
    await cleanups.pop()!();
    const result = await doctor(
      [
        '--json',
        '--execution',
        join(t.path, 'file', 'exec'),
        '--port',
        String(held),
        '--provider-base-url',
        `http://user:${MARKER}@127.0.0.1:${down}`,
      ],
      { PATH: bin },
    );
    expect(result.code, result.stderr).toBe(1);
    const report = DoctorReport.parse(JSON.parse(result.stdout));
    expect(report.ok).toBe(false);
    const status = Object.fromEntries(report.checks.map((c) => [c.check, c.status]));
    expect(status).toEqual({
      node: 'ok',
      git: 'fail',
      'claude code': 'warn',
      'codex cli': 'warn',
      'gemini cli': 'warn',
      opencode: 'warn',
      credentials: 'fail',
      provider: 'fail',
      'execution dir': 'fail',
      port: 'fail',
      // No bwrap or socat on that PATH: sandbox auto would run agents unconfined.
      sandbox: 'warn',
    });
    for (const c of report.checks.filter((c) => c.status !== 'ok')) expect(c.fix).toBeTruthy();
    expect(result.stdout + result.stderr).not.toContain('MARKER');
  });

  it('finds the provider as run does: SERVICE_RUNTIME_PROVIDER_BASE_URL > ANTHROPIC_BASE_URL > --config', async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    const service = await listening();
    const anthropic = await listening();
    const configured = await listening();
    const config = join(t.path, 'ribosome.config.yaml');
    writeFileSync(config, `providerBaseUrl: http://127.0.0.1:${configured}\n`);
    const provider = async (extra: NodeJS.ProcessEnv, args: string[] = []) => {
      const result = await doctor(['--json', '--execution', t.path, ...args], {
        ANTHROPIC_API_KEY: 'k',
        ...extra,
      });
      const report = DoctorReport.parse(JSON.parse(result.stdout));
      return report.checks.find((c) => c.check === 'provider');
    };
    const urls = {
      SERVICE_RUNTIME_PROVIDER_BASE_URL: `http://127.0.0.1:${service}`,
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${anthropic}`,
    };
    expect(await provider(urls, ['--config', config])).toMatchObject({
      status: 'ok',
      detail: `http://127.0.0.1:${service}/ (SERVICE_RUNTIME_PROVIDER_BASE_URL) answered HTTP 404`,
    });
    expect(
      (await provider({ ANTHROPIC_BASE_URL: urls.ANTHROPIC_BASE_URL }, ['--config', config]))?.detail,
    ).toBe(`http://127.0.0.1:${anthropic}/ (ANTHROPIC_BASE_URL) answered HTTP 404`);
    expect((await provider({}, ['--config', config]))?.detail).toBe(
      `http://127.0.0.1:${configured}/ (config file key providerBaseUrl) answered HTTP 404`,
    );
    // A config file run would refuse: exit 2 with its problems.
    writeFileSync(config, 'providerBaseUrll: http://x\n');
    const refused = await doctor(['--config', config], {});
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/providerBaseUrll/);
  });

  it('a query value is never echoed, and a port fetch refuses says what it means', async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    const secret = await doctor(['--execution', t.path], {
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: `http://127.0.0.1:9/v1?token=${MARKER}`,
    });
    expect(secret.code).toBe(1);
    expect(secret.stdout).toMatch(
      /^provider\s+fail\s+ANTHROPIC_BASE_URL must be an http\(s\) base URL: must not carry a query/m,
    );
    expect(secret.stdout + secret.stderr).not.toContain('MARKER');
    const bad = await doctor(['--execution', t.path, '--provider-base-url', 'http://127.0.0.1:6000'], {
      ANTHROPIC_API_KEY: 'k',
    });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(
      /^provider\s+fail\s+http:\/\/127\.0\.0\.1:6000\/ \(--provider-base-url\): port 6000 is one Node's fetch refuses/m,
    );
  });

  it('no credential variable but a Claude Code login: a warning, exit 0', async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    mkdirSync(join(t.path, '.claude'));
    writeFileSync(join(t.path, '.claude', '.credentials.json'), `{"token":"${MARKER}"}`);
    const provider = await listening();
    const result = await doctor(
      ['--execution', t.path, '--provider-base-url', `http://127.0.0.1:${provider}`],
      {
        HOME: t.path,
      },
    );
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/^credentials\s+warn\s+none of .* is set; a Claude Code login is there/m);
    expect(result.stdout).toMatch(/claudeConfig: user/);
    expect(result.stdout).toMatch(/all checks passed \(5 warnings\)/);
    expect(result.stdout + result.stderr).not.toContain('MARKER');
  });

  it('a bad --port is refused with exit 2', async () => {
    const result = await doctor(['--port', '70000'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--port must be an integer/);
  });
});
