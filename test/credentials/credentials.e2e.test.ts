import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { simplePlan, writePlanAndScript, writeTurns } from '../helpers/plans.ts';
import { runCli, tempDir } from '../helpers/server-process.ts';

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
});
