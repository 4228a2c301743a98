import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../src/core/client/index.ts';
import { sandboxSupport } from '../../src/platform/sandbox/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { simplePlan } from '../helpers/plans.ts';
import { pidsWith, waitFor } from '../helpers/processes.ts';
import { startServer } from '../helpers/server-process.ts';

/**
 * What an agent starts in the background, however it detaches (a session of its own, nohup, a double
 * fork, disown), ends with its codon: when the codon ends, is force-stopped, when the server stops,
 * and, after the server was killed outright, when the next server starts.
 */
const { clients, serve } = e2eResources();

const STYLES = ['setsid', 'nohup', 'double fork', 'disown'] as const;

/** Sleep durations as markers: background jobs base+0..3, the agent's stuck command base+4. */
function markers() {
  const base = 50_000 + Math.floor(Math.random() * 9000) * 5;
  const m = { base, jobs: STYLES.map((_, i) => `sleep ${base + i}`), stuck: `sleep ${base + 4}` };
  used.push(m.stuck, ...m.jobs);
  return m;
}

// A failed test may leave them (the agent outlives a SIGKILLed server): never beyond the test.
const used: string[] = [];
afterEach(() => {
  for (const pid of used.splice(0).flatMap(pidsWith))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
});

function backgroundCommand(base: number): string {
  return [
    // It writes its pid once in its own session: the tool's end of its group must not race setsid.
    `setsid sh -c 'echo $$ > setsid.pid; exec sleep ${base}' >/dev/null 2>&1 </dev/null &`,
    'while [ ! -s setsid.pid ]; do sleep 0.05; done',
    `nohup sleep ${base + 1} >/dev/null 2>&1 &`,
    `( (sleep ${base + 2} >/dev/null 2>&1 &) & )`,
    `sleep ${base + 3} >/dev/null 2>&1 & disown`,
    'echo started',
  ].join('\n');
}

const bash = (command: string) =>
  `  - content:\n      - tool_use: { name: Bash, input: { command: ${JSON.stringify(command)}, timeout: 600000 } }\n`;

/** The codon's agent starts the background jobs, then either ends (`end`) or hangs in a command. */
function script(base: number, then: 'end' | 'hang'): string {
  const next =
    then === 'end'
      ? // Evidence that the detached job outlived the Bash call that started it (the codon still ran).
        `${bash('kill -0 "$(cat setsid.pid)" && echo yes > escaped.txt')}  - content:\n      - text: Done.\n`
      : bash(`sleep ${base + 4}`);
  return `turns:\n${bash(backgroundCommand(base))}${next}`;
}

const alive = (needles: string[]) => needles.filter((n) => pidsWith(n).length > 0);

async function hanging(sandbox: 'auto' | 'off' = 'auto') {
  const m = markers();
  const served = await serve(`sandbox: ${sandbox}\n${simplePlan(['bg'])}`, script(m.base, 'hang'));
  await waitFor(() => pidsWith(m.stuck).length > 0, 'the agent to hang in its command', 30_000);
  // The Bash tool ended its own process group's jobs; the one in a session of its own escaped it.
  expect(alive([m.jobs[0] ?? ''])).toHaveLength(1);
  return { ...served, m };
}

describe('processes an agent started in the background', () => {
  it('end when the codon ends', async () => {
    const m = markers();
    const { client, root } = await serve(simplePlan(['bg']), script(m.base, 'end'));
    const completed = await client.next('codon.completed', (e) => e.data.codonId === 'bg', 60_000);
    expect(completed.data.success).toBe(true);
    expect(existsSync(join(root, 'escaped.txt'))).toBe(true);
    expect(alive([...m.jobs, m.stuck])).toEqual([]);
  });

  it('end when the codon is force-stopped', async () => {
    const { client, m } = await hanging();
    const completed = client.next('codon.completed', (e) => e.data.codonId === 'bg', 30_000);
    client.send('codon.forceStop', { reason: 'enough' });
    expect((await completed).data.success).toBe(false);
    expect(alive([...m.jobs, m.stuck])).toEqual([]);
  });

  it('end when the server stops (SIGTERM)', async () => {
    const { server, m } = await hanging();
    server.kill('SIGTERM');
    await server.exited;
    expect(alive([...m.jobs, m.stuck])).toEqual([]);
  });

  it('are left by a server killed outright and ended by the next one at its start', async () => {
    // Unconfined: in the sandbox they end with the server itself (next test).
    const { server, exec, m } = await hanging('off');
    server.kill('SIGKILL');
    await server.exited;
    expect(alive([m.jobs[0] ?? '', m.stuck])).toHaveLength(2);
    const dir = dirname(exec);
    const next = await startServer(join(dir, 'plan.yaml'), exec, [
      '--no-autostart',
      '--scripted-provider',
      join(dir, 'script.yaml'),
    ]);
    const client = await RibosomeClient.connect(next.url, { mode: 'readonly' });
    clients.push(client);
    await waitFor(() => alive([...m.jobs, m.stuck]).length === 0, 'the leftovers to be ended', 10_000);
  });
});

describe.runIf(sandboxSupport().ok)('processes an agent started in the background, in the sandbox', () => {
  it('end with a server killed outright: the sandbox dies with its parent', async () => {
    const { server, m } = await hanging();
    server.kill('SIGKILL');
    await server.exited;
    await waitFor(
      () => alive([...m.jobs, m.stuck]).length === 0,
      'the sandbox to end with the server',
      10_000,
    );
  });
});
