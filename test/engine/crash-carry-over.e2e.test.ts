/**
 * Nothing lost across a crash (docs/steering.md, "Sentinel actions"): a server
 * killed with SIGKILL after a message (or a redo) is restarted on the same execution; the codon's
 * next run gets the text in its prompt, journaled as codon.message `prompt`, and a redo's `max`
 * counts the redo the killed server took. Real processes: `ribosome run`, the built-in agent, a
 * scripted provider this test runs (every request is seen).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../src/core/client/index.ts';
import type { ServerEvent } from '../../src/core/protocol/index.ts';
import type { ScriptInput } from '../../src/llm/mock-provider/script-schema.ts';
import { type MockProvider, startMockProvider } from '../../src/llm/mock-provider/server.ts';
import { pidsWith, waitFor } from '../helpers/processes.ts';
import {
  journalRows,
  killAll,
  runCli,
  type ServerProcess,
  startServer,
  tempDir,
} from '../helpers/server-process.ts';

const temps: Array<{ remove(): void }> = [];
const clients: RibosomeClient[] = [];
const providers: MockProvider[] = [];
const markers: string[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  killAll();
  await Promise.all(providers.splice(0).map((p) => p.stop()));
  for (const pid of markers.splice(0).flatMap(pidsWith))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
});
afterAll(() => {
  for (const t of temps.splice(0)) t.remove();
});

const TIMEOUT = 240_000;
const WAIT = 120_000;

async function setUp(plan: string, script: ScriptInput) {
  const t = tempDir();
  temps.push(t);
  writeFileSync(join(t.path, 'plan.yaml'), plan);
  const provider = await startMockProvider({ script });
  providers.push(provider);
  const exec = join(t.path, 'exec');
  mkdirSync(exec, { recursive: true });
  const start = async (extra: string[] = []) => {
    const server = await startServer(
      join(t.path, 'plan.yaml'),
      exec,
      ['--provider-base-url', provider.url, ...extra],
      30_000,
      { ANTHROPIC_API_KEY: 'test-key' },
    );
    const client = await RibosomeClient.connect(server.url, { mode: 'readandwrite' });
    clients.push(client);
    const events: ServerEvent[] = [];
    client.onEvent((e) => events.push(e));
    const until = async <T extends ServerEvent['type']>(
      type: T,
      match: (e: Extract<ServerEvent, { type: T }>) => boolean = () => true,
    ): Promise<Extract<ServerEvent, { type: T }>> => {
      const find = () =>
        events.find((e): e is Extract<ServerEvent, { type: T }> => e.type === type && match(e as never));
      await waitFor(() => find() !== undefined, type, WAIT);
      return find() as Extract<ServerEvent, { type: T }>;
    };
    return { server, client, events, until };
  };
  return { provider, exec, root: join(exec, 'agentRoot'), start };
}

async function crash(server: ServerProcess): Promise<void> {
  server.kill('SIGKILL');
  await server.exited;
}

const reply = (text: string) => ({ content: [{ text }] });
const bash = (command: string) => ({ content: [{ tool_use: { name: 'Bash', input: { command } } }] });
const write = (file: string) => ({
  content: [{ tool_use: { name: 'Write', input: { file_path: file, content: `${file}\n` } } }],
});

describe('a crash loses no spend (trial 17b L9)', () => {
  it('what the agent spent before a kill -9 counts: runs and log show it, not $0', {
    timeout: TIMEOUT,
  }, async () => {
    const marker = `sleep ${71_000 + Math.floor(Math.random() * 9000)}`;
    markers.push(marker);
    const s = await setUp(
      `name: spent\nagent: builtin\nmodel: claude-sonnet-4-5\ncodons:\n  - id: a\n    name: A\n    prompt: Do a.\n`,
      {
        tracks: [
          // A million fresh input tokens ($3.00 at Sonnet 4.5's price), then a tool that outlives the server.
          {
            name: 'stuck',
            match: { firstUser: 'Do a.' },
            turns: [{ ...bash(marker), usage: { input_tokens: 1_000_000, output_tokens: 0 } }],
          },
        ],
      },
    );
    const first = await s.start(['--no-autostart']);
    const running = first.until('assistant.action', (e) => e.data.toolName === 'Bash');
    first.client.send('codon.next');
    await running;
    await waitFor(() => pidsWith(marker).length > 0, 'the tool to run', WAIT);
    // The spend is journaled with the agent's response, before its tool runs.
    expect(journalRows(s.exec).find((r) => r.type === 'token.usage')?.data.totalCost).toBe(3);
    await crash(first.server);

    const cli = async (...args: string[]) => {
      const proc = runCli([...args, '--execution', s.exec]);
      const { code } = await proc.exited;
      return { code, stdout: proc.stdout() };
    };
    const before = await cli('runs', '--json');
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout)).toMatchObject([{ status: 'crashed', cost: 3 }]);

    // The next start records the crash: the codon's failure line carries its spend.
    await s.start(['--no-autostart']);
    await waitFor(
      () =>
        journalRows(s.exec).some(
          (r) => r.type === 'state.transition' && r.data.transitionType === 'RunCrashed',
        ),
      'the crash to be recorded',
      WAIT,
    );
    const log = await cli('log');
    expect(log.stdout).toMatch(/< a FAILED \([^)]*\$3\.0000\)/);
    const after = await cli('runs', '--json');
    expect(JSON.parse(after.stdout)[0]).toMatchObject({ status: 'crashed', cost: 3 });
  });
});

describe('a crash loses nothing the agent was told', () => {
  it("a message sent mid-tool before a kill -9 reaches the codon's next run in its prompt, journaled as prompt", {
    timeout: TIMEOUT,
  }, async () => {
    const marker = `sleep ${71_000 + Math.floor(Math.random() * 9000)}`;
    markers.push(marker);
    const s = await setUp(
      `name: carried\nagent: builtin\ncodons:\n  - id: a\n    name: A\n    prompt: Do a.\n`,
      {
        tracks: [
          // The next run's prompt holds the message: it answers by writing carried.txt.
          {
            name: 'carried',
            match: { firstUser: 'CARRY-ME' },
            turns: [write('carried.txt'), reply('Done.')],
          },
          { name: 'stuck', match: { firstUser: 'Do a.' }, turns: [bash(marker)] },
        ],
      },
    );
    const first = await s.start(['--no-autostart']);
    const running = first.until('assistant.action', (e) => e.data.toolName === 'Bash');
    first.client.send('codon.next');
    await running;
    await waitFor(() => pidsWith(marker).length > 0, 'the tool to run', WAIT);
    const sent = await first.client.sendMessage('CARRY-ME: also write carried.txt', { timeoutMs: WAIT });
    expect(sent.data.delivery).toBe('live');
    const sender = first.client.clientId;
    await crash(first.server);

    // Autostart: the interrupted codon runs again, with the message in its prompt.
    const second = await s.start();
    const completed = await second.until('codon.completed', (e) => e.data.codonId === 'a');
    expect(completed.data.success).toBe(true);
    expect(existsSync(join(s.root, 'carried.txt'))).toBe(true);
    const carried = s.provider.requests.filter((q) => q.track === 'carried');
    expect(carried.length).toBeGreaterThan(0);
    expect(JSON.stringify(carried[0]?.body)).toContain('Do a.\\n\\nCARRY-ME: also write carried.txt');

    const rows = journalRows(s.exec);
    const messages = rows.filter((r) => r.type === 'codon.message').map((r) => r.data);
    expect(messages).toEqual([
      {
        codonId: 'a',
        text: 'CARRY-ME: also write carried.txt',
        from: { kind: 'client', clientId: sender },
        delivery: 'live',
      },
      {
        codonId: 'a',
        text: 'CARRY-ME: also write carried.txt',
        from: { kind: 'client', clientId: sender },
        delivery: 'prompt',
      },
    ]);
    // The prompt message comes before the new run's codon.started, and the crash warning counts it.
    const order = rows.flatMap((r) =>
      r.type === 'codon.message' || r.type === 'codon.started'
        ? [`${r.type} ${r.data.delivery ?? ''}`.trim()]
        : [],
    );
    expect(order).toEqual(['codon.started', 'codon.message live', 'codon.message prompt', 'codon.started']);
    const warning = rows.find((r) => r.type === 'error' && r.data.code === 'RUN_CRASHED');
    expect(warning?.data.message).toContain("1 message sent to codon a's agent carries over to its next run");
  });

  it("a redo a kill -9 interrupted: the next run carries its text once, and its max counts the killed server's redo", {
    timeout: TIMEOUT,
  }, async () => {
    const s = await setUp(
      `name: redone
agent: builtin
codons:
  - id: setup
    name: Setup
    prompt: Do setup.
  - id: work
    name: Work
    prompt: Do work.
    sentinels:
      - id: judge
        model: claude-haiku-4-5
        systemPrompt: You judge whether the agent repeats itself.
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [tool.result], conditions: [{ path: data.toolName, op: equals, value: Bash }] }
        actions:
          - { when: { regex: REDO }, do: redo, max: 1, text: "Note from the judge: slow down." }
          - { when: { regex: REDO }, do: halt }
`,
      {
        tracks: [
          { name: 'judge', match: { system: 'You judge whether' }, whenExhausted: reply('REDO') },
          {
            name: 'agent-setup',
            match: { firstUser: 'Do setup.' },
            turns: [write('base.txt'), reply('Set up.')],
          },
          { name: 'agent-work', match: { firstUser: 'Do work.' }, loop: true, turns: [bash('echo again')] },
        ],
      },
    );
    const first = await s.start();
    // The kill comes as soon as the redo is announced: before, during or after its rollback.
    await first.until('sentinel.action', (e) => e.data.action === 'redo');
    await crash(first.server);
    const before = s.provider.requests.length;

    const second = await s.start();
    const halted = await second.until('sentinel.action', (e) => e.data.action === 'halt');
    await second.until('codon.completed', (e) => e.data.codonId === 'work');
    // Its one redo was taken by the killed server: this one halts instead of redoing again.
    expect(halted.data.codonId).toBe('work');
    expect(second.events.filter((e) => e.type === 'sentinel.action' && e.data.action === 'redo')).toEqual([]);
    const held = await second.until('info', (e) => e.data.message.includes('redo on output'));
    expect(held.data.message).toContain('its max (1) redos of this codon were taken');
    // The restarted server's first work request carries the redo's text, once.
    const work = s.provider.requests.slice(before).filter((q) => q.track === 'agent-work');
    const prompt = JSON.stringify(work[0]?.body);
    expect(prompt).toContain('Do work.\\n\\nNote from the judge: slow down.');
    expect(prompt.split('Note from the judge').length - 1).toBe(1);
    // Journaled once more, in the restarted server's run, before its codon.started.
    const rows = journalRows(s.exec);
    // The restarted server says so: in its crash warning, or (the codon had ended) in an info event.
    const told = rows.flatMap((r) =>
      (r.type === 'error' && r.data.code === 'RUN_CRASHED') || r.type === 'info'
        ? [String(r.data.message)]
        : [],
    );
    expect(
      told.some((m) => m.includes("1 message sent to codon work's agent carries over to its next run")),
    ).toBe(true);
    const rerun = rows.findLast((r) => r.type === 'codon.started' && r.data.codonId === 'work')?.runId;
    const ofRerun = rows.filter(
      (r) => r.runId === rerun && (r.type === 'codon.message' || r.type === 'codon.started'),
    );
    expect(ofRerun.map((r) => r.data)).toEqual([
      {
        codonId: 'work',
        text: 'Note from the judge: slow down.',
        from: { kind: 'sentinel', sentinelId: 'judge' },
        delivery: 'prompt',
      },
      expect.objectContaining({ codonId: 'work' }),
    ]);
  });
});
