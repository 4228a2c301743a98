/**
 * The repro (issue 30 M1): the built-in agent runs Bash `sleep 8; echo slow-done`, then
 * `echo quick-done`; the server is killed with SIGKILL while the sleep runs and started again, and
 * the codon runs again. The history a client then receives, folded by the terminal UI's store, the
 * dashboard's rows and the console view (`ribosome log`), pairs every result with its own call and
 * shows the killed call as ended with the codon. Real processes: `ribosome run`, the built-in agent,
 * a scripted provider this test runs (its tracks go on across the restart).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { toolCallMark } from '../../../src/clients/model/format.ts';
import { foldEvents } from '../../../src/clients/model/store/fold-event.ts';
import { initialRunState } from '../../../src/clients/model/store/run-state.ts';
import { EMPTY_LOG, foldActivity } from '../../../src/clients/web/model/activity-rows.ts';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { type MockProvider, startMockProvider } from '../../../src/llm/mock-provider/server.ts';
import { commandsIn, processesIn } from '../../helpers/mounts.ts';
import { waitFor } from '../../helpers/processes.ts';
import { killAll, runCli, startServer, tempDir } from '../../helpers/server-process.ts';

const TIMEOUT = 180_000;
const WAIT = 90_000;
const SLOW = 'sleep 8; echo slow-done';
const QUICK = 'echo quick-done';

const temps: Array<{ remove(): void }> = [];
const clients: RibosomeClient[] = [];
const providers: MockProvider[] = [];
let root = '';
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  killAll();
  await Promise.all(providers.splice(0).map((p) => p.stop()));
  // A sleep the killed server left behind.
  for (const pid of root ? processesIn(root) : [])
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
});
afterAll(() => {
  for (const t of temps.splice(0)) t.remove();
});

const bash = (command: string) => ({ content: [{ tool_use: { name: 'Bash', input: { command } } }] });

describe('tool calls across a kill -9 and a restart (issue 30 M1)', () => {
  it('the killed call ended with the codon; the new sleep and quick-done have their own results', {
    timeout: TIMEOUT,
  }, async () => {
    const t = tempDir();
    temps.push(t);
    writeFileSync(
      join(t.path, 'plan.yaml'),
      'name: pairs\nagent: builtin\nmodel: claude-sonnet-4-5\ncodons:\n  - id: a\n    name: A\n    prompt: Do a.\n',
    );
    // The first attempt gets the first turn and is killed in it; the next attempt the rest.
    const provider = await startMockProvider({
      script: {
        tracks: [
          {
            name: 'work',
            match: { firstUser: 'Do a.' },
            turns: [bash(SLOW), bash(SLOW), bash(QUICK), { content: [{ text: 'Done.' }] }],
          },
        ],
      },
    });
    providers.push(provider);
    const exec = join(t.path, 'exec');
    mkdirSync(exec, { recursive: true });
    root = join(exec, 'agentRoot');
    const start = async () => {
      const server = await startServer(
        join(t.path, 'plan.yaml'),
        exec,
        ['--provider-base-url', provider.url, '--no-autostart'],
        30_000,
        { ANTHROPIC_API_KEY: 'test-key' },
      );
      const client = await RibosomeClient.connect(server.url, { mode: 'readandwrite' });
      clients.push(client);
      return { server, client };
    };

    const first = await start();
    const slow = first.client.next(
      'assistant.action',
      (e) => e.data.action === 'tool_use' && e.data.content.includes(SLOW),
      WAIT,
    );
    first.client.send('codon.next');
    await slow;
    await waitFor(() => commandsIn(root, 'sleep 8').length > 0, 'the sleep to run', WAIT);
    first.server.kill('SIGKILL');
    await first.server.exited;

    // The restarted server records the crash; the codon runs again.
    const second = await start();
    const done = second.client.next('codon.completed', (e) => e.data.codonId === 'a' && e.data.success, WAIT);
    second.client.send('codon.next');
    await done;
    const history: ServerEvent[] = await second.client.syncHistory();

    // The terminal UI's store.
    const state = foldEvents(initialRunState(second.server.url), history);
    const tui = state.activity.flatMap((e) =>
      e.kind === 'tool'
        ? [`${e.toolName} ${e.summary} ${toolCallMark(e).state} ${e.result?.text.trim() ?? ''}`]
        : [],
    );
    expect(tui).toEqual([
      `Bash ${SLOW} ended `,
      `Bash ${SLOW} done slow-done`,
      `Bash ${QUICK} done quick-done`,
    ]);
    const killed = state.activity.find((e) => e.kind === 'tool');
    expect(killed && toolCallMark(killed).text).toBe('· ended with the codon');

    // The dashboard's rows.
    const rows = foldActivity(EMPTY_LOG, history).rows.filter((r) => r.kind === 'tool');
    expect(rows.map((r) => `${r.text} ${toolCallMark(r).state} ${r.result?.text.trim() ?? ''}`)).toEqual([
      `Bash ${SLOW} ended `,
      `Bash ${SLOW} done slow-done`,
      `Bash ${QUICK} done quick-done`,
    ]);

    // The console view: the killed call's line before the crashed attempt's end.
    const log = runCli(['log', '--execution', exec]);
    expect((await log.exited).code).toBe(0);
    const lines = log.stdout().split('\n');
    const ended = lines.indexOf(`    tool  Bash ${SLOW}  · ended with the codon`);
    expect(ended, log.stdout()).toBeGreaterThan(0);
    expect(lines[ended + 1], log.stdout()).toMatch(/^< a FAILED/);
    expect(lines.filter((l) => l.includes('ended with the codon'))).toHaveLength(1);
  });
});
