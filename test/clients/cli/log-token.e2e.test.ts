/**
 * `ribosome log` against a server that has an access token: it takes the token (--token or
 * RIBOSOME_TOKEN); without it, following says the running server refused it and exits 1, never that
 * no server is running (trial of issue 27, M1).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { ROOT, runCli, startServer, tempDir } from '../../helpers/server-process.ts';

const { temps } = e2eResources();
const TOKEN = 'log-token-test-0123456789';

describe('ribosome log and an access token', () => {
  it('follows with the token; without it says the server refused, exit 1', async () => {
    const t = tempDir();
    temps.push(t);
    const exec = join(t.path, 'exec');
    const server = await startServer(join(ROOT, 'examples/demo/plan.yaml'), exec, [
      '--scripted-provider',
      join(ROOT, 'examples/scripts/demo.yaml'),
      '--no-autostart',
      '--token',
      TOKEN,
    ]);

    const refused = runCli(['log', '--execution', exec, '--follow'], { env: { RIBOSOME_TOKEN: '' } });
    expect((await refused.exited).code).toBe(1);
    expect(refused.stderr()).toMatch(
      /refused the connection \(.*HTTP 401.*give its access token with --token/,
    );
    expect(refused.stderr()).not.toMatch(/no server is running/);

    const byFlag = runCli(['log', '--url', server.url, '--token', TOKEN]);
    expect((await byFlag.exited).code).toBe(0);
    expect(byFlag.stdout()).toMatch(/idle; 0 of 3 codons done/);

    const byEnv = runCli(['log', '--url', server.url], { env: { RIBOSOME_TOKEN: TOKEN } });
    expect((await byEnv.exited).code).toBe(0);
    expect(byEnv.stdout()).toMatch(/idle; 0 of 3 codons done/);
  });
});
