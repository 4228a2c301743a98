import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { simplePlan, writePlanAndScript, writeTurns } from '../../helpers/plans.ts';
import { runCli, tempDir } from '../../helpers/server-process.ts';

/** Each credential kind reaches the provider in its own header; a real provider without one is refused. */

const { temps, serve } = e2eResources();
const NONE = {
  ANTHROPIC_API_KEY: undefined,
  ANTHROPIC_AUTH_TOKEN: undefined,
  CLAUDE_CODE_OAUTH_TOKEN: undefined,
};

describe('credentials', () => {
  it('the built-in agent sends an API key as x-api-key, a gateway token and a subscription token as bearers', async () => {
    const plan = `name: creds
agent: builtin
codons:
  - id: key
    prompt: Do key.
    env: { ANTHROPIC_API_KEY: marker-key-1 }
  - id: gateway
    prompt: Do gateway.
    env: { ANTHROPIC_API_KEY: "", ANTHROPIC_AUTH_TOKEN: marker-token-2 }
  - id: oauth
    prompt: Do oauth.
    env: { ANTHROPIC_API_KEY: "", CLAUDE_CODE_OAUTH_TOKEN: marker-oauth-3 }
`;
    // A codon's turns are only served when its credential arrived in the header it belongs in.
    const track = (id: string, header: string) =>
      `  - name: ${id}\n    match: { firstUser: "Do ${id}.", header: { ${header} } }\n    turns:\n${writeTurns(`${id}.txt`, 'ok').replace(/^(?=.)/gm, '    ')}`;
    const script = `tracks:
${track('key', 'x-api-key: marker-key-1')}${track('gateway', 'authorization: "Bearer marker-token-2"')}${track('oauth', 'authorization: "Bearer marker-oauth-3", anthropic-beta: oauth-2025-04-20')}turns:
  - error: { status: 401, message: "no credential where it belongs" }
    repeat: 10
`;
    const { client, root } = await serve(plan, script, [], { ...NONE, RIBOSOME_AGENT_MAX_RETRIES: '0' });
    await client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    for (const id of ['key', 'gateway', 'oauth'])
      expect(readFileSync(join(root, `${id}.txt`), 'utf8')).toBe('ok');
  });

  it('a provider off this machine with no credential: exit 2 naming what to set, before any request', async () => {
    const t = tempDir();
    temps.push(t);
    const files = writePlanAndScript(t.path, simplePlan(['one']), 'turns: []\n');
    const run = runCli(
      [
        'run',
        files.plan,
        '--headless',
        '--execution',
        join(t.path, 'exec'),
        '--provider-base-url',
        'https://provider.invalid',
      ],
      { env: NONE },
    );
    const exit = await run.exited;
    expect(exit.code).toBe(2);
    expect(run.stderr()).toMatch(
      /no credential for the provider https:\/\/provider\.invalid: set ANTHROPIC_API_KEY/,
    );
  });

  /** `ribosome run` of `plan` with no credential variable, as far as its start check. */
  async function start(plan: string, args: string[], env: NodeJS.ProcessEnv = {}) {
    const t = tempDir();
    temps.push(t);
    const files = writePlanAndScript(t.path, plan, 'turns: []\n');
    const exec = join(t.path, 'exec');
    const run = runCli(['run', files.plan, '--headless', '--exit-when-done', '--execution', exec, ...args], {
      env: { ...NONE, ...env },
    });
    const timer = setTimeout(() => run.kill('SIGKILL'), 60_000);
    const exit = await run.exited;
    clearTimeout(timer);
    return { code: exit.code, stderr: run.stderr(), exec };
  }

  it('claude-code against a gateway on this machine with no credential: exit 2 naming what to set', async () => {
    const gateway = 'http://127.0.0.1:9';
    const plan = 'name: cc\nagent: claude-code\ncodons: [ { id: one, prompt: Do one. } ]\n';
    const refused = await start(plan, ['--provider-base-url', gateway]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'codon one: no credential for the gateway http://127.0.0.1:9: Claude Code does not start without one ("Not logged in"), even against a gateway on this machine: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN to any value the gateway accepts',
    );
    expect(existsSync(join(refused.exec, '.ribosome'))).toBe(false);
    const keyed = await start(
      `name: cc\nagent: claude-code\ncodons:\n  - id: one\n    prompt: Do one.\n    provider: { baseUrl: "${gateway}", apiKeyEnv: GW_KEY }\n`,
      [],
    );
    expect(keyed.code).toBe(2);
    expect(keyed.stderr).toContain(
      'codon one calls http://127.0.0.1:9 with the key in GW_KEY, which is not set: Claude Code does not start without a credential',
    );
  });

  it("a provider on a port Node's fetch refuses: exit 2 at start for the built-in agent", async () => {
    const refused = await start(simplePlan(['one']), ['--provider-base-url', 'http://127.0.0.1:6000']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `codon one calls http://127.0.0.1:6000, but port 6000 is one Node's fetch refuses to connect to ("bad port")`,
    );
    expect(existsSync(join(refused.exec, '.ribosome'))).toBe(false);
  });
});
