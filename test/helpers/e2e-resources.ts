import { afterAll, afterEach } from 'vitest';
import type { RibosomeClient } from '../../src/client/index.ts';
import { killAll } from './server-process.ts';

/**
 * What an e2e test file starts and must end: clients are closed and every process started through
 * runCli/startServer is killed after each test; temp directories go after the file.
 */
export function e2eResources(): { temps: Array<{ remove(): void }>; clients: RibosomeClient[] } {
  const temps: Array<{ remove(): void }> = [];
  const clients: RibosomeClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    killAll();
  });
  afterAll(() => {
    for (const t of temps.splice(0)) t.remove();
  });
  return { temps, clients };
}
