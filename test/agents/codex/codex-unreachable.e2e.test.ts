/**
 * The real Codex CLI with a provider nobody listens on: Codex itself would wait for the network
 * without end ("Reconnecting... waiting for network"); the codon fails instead, saying why, and no
 * codex process is left.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { CODEX } from '../../../src/agents/codex/codex-cli.ts';
import { journalRows, killAll, runCli, tempDir } from '../../helpers/server-process.ts';

const codex = cliBinary(CODEX);
const found = spawnSync(codex, ['--version'], { encoding: 'utf8' }).status === 0;
if (!found) {
  if (process.env.CI) throw new Error(`the Codex CLI (${codex}) is missing: CI installs it (.ci/run)`);
  console.log(`skipping the Codex e2e tests: no Codex CLI (${codex}); npm install -g ${CODEX.pkg}`);
}

/** A loopback port nothing listens on (taken, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Pids of processes working in `dir` (the agent root is inside the execution directory). */
function pidsIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readlinkSync(`/proc/${p}/cwd`).startsWith(dir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  killAll();
  for (const dir of dirs.splice(0)) dir.remove();
});

describe.skipIf(!found)('Codex CLI with an unreachable provider (e2e)', () => {
  it('fails the codon as unreachable instead of waiting for the network', async () => {
    const dir = tempDir('ribosome-codex-');
    dirs.push(dir);
    const plan = join(dir.path, 'plan.yaml');
    writeFileSync(plan, 'name: codex-unreachable\nagent: codex\ncodons:\n  - id: one\n    prompt: hi\n');
    const exec = join(dir.path, 'exec');
    const proc = runCli([
      'run',
      plan,
      '--headless',
      '--exit-when-done',
      '--execution',
      exec,
      '--provider-base-url',
      `http://127.0.0.1:${await closedPort()}`,
    ]);
    const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    const { code } = await proc.exited;
    clearTimeout(timer);
    expect(code, proc.stderr()).toBe(1);
    const completed = journalRows(exec).find((row) => row.type === 'codon.completed');
    expect(completed?.data).toMatchObject({
      success: false,
      failureReason: {
        type: 'unknown',
        // Unconfined, Codex's connection is refused and it would wait for the network; in the sandbox
        // the network gate drops the connection it cannot pass on, and Codex gives up on its own.
        message: expect.stringMatching(
          /^the provider could not be reached \(Connection failed|^stream disconnected before completion: error sending request/,
        ),
      },
    });
    expect(pidsIn(exec)).toEqual([]);
  }, 90_000);
});
