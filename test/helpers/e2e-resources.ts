import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { RibosomeClient } from '../../src/core/client/index.ts';
import { writePlanAndScript } from './plans.ts';
import { killAll, startServer, tempDir } from './server-process.ts';

/**
 * What an e2e test file starts and must end: clients are closed and every process started through
 * runCli/startServer is killed after each test; temp directories go after the file. `serve` runs a
 * plan on the scripted provider in a temp dir and connects a readandwrite client with its history.
 */
export function e2eResources() {
  const temps: Array<{ remove(): void }> = [];
  const clients: RibosomeClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    killAll();
  });
  afterAll(() => {
    for (const t of temps.splice(0)) t.remove();
  });
  async function serve(plan: string, script: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}) {
    const t = tempDir();
    temps.push(t);
    const files = writePlanAndScript(t.path, plan, script);
    const exec = join(t.path, 'exec');
    const server = await startServer(
      files.plan,
      exec,
      ['--scripted-provider', files.script, ...extra],
      20_000,
      env,
    );
    const client = await RibosomeClient.connect(server.url, {
      mode: 'readandwrite',
      sendPreviousEvents: true,
    });
    clients.push(client);
    return { server, client, exec, root: join(exec, 'agentRoot') };
  }
  return { temps, clients, serve };
}
