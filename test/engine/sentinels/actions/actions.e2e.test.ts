import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../../../src/core/client/index.ts';
import { parseServerEvent, type ServerEvent } from '../../../../src/core/protocol/index.ts';
import type { ScriptInput } from '../../../../src/llm/mock-provider/script-schema.ts';
import { type MockProvider, startMockProvider } from '../../../../src/llm/mock-provider/server.ts';
import { pidsWith, waitFor } from '../../../helpers/processes.ts';
import { killAll, ROOT, startServer, tempDir } from '../../../helpers/server-process.ts';

/**
 * Sentinel actions in real `ribosome run` processes: the agent (the built-in one) and the sentinels
 * call a scripted provider this test runs, so every request is seen (`provider.requests`).
 */

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

async function run(plan: string, script: ScriptInput, files: Record<string, string> = {}) {
  const t = tempDir();
  temps.push(t);
  writeFileSync(join(t.path, 'plan.yaml'), plan);
  for (const [name, from] of Object.entries(files)) copyFileSync(from, join(t.path, name));
  const provider = await startMockProvider({ script });
  providers.push(provider);
  const exec = join(t.path, 'exec');
  mkdirSync(exec, { recursive: true });
  const server = await startServer(
    join(t.path, 'plan.yaml'),
    exec,
    ['--provider-base-url', provider.url],
    20_000,
    {
      ANTHROPIC_API_KEY: 'test-key',
    },
  );
  const client = await RibosomeClient.connect(server.url, { mode: 'readandwrite', sendPreviousEvents: true });
  clients.push(client);
  const events: ServerEvent[] = client.handshake.eventHistory.flatMap((raw) => {
    const parsed = parseServerEvent(raw);
    return parsed.ok ? [parsed.event] : [];
  });
  client.onEvent((e) => events.push(e));
  const until = async <T extends ServerEvent['type']>(
    type: T,
    match: (e: Extract<ServerEvent, { type: T }>) => boolean = () => true,
    timeoutMs = 120_000,
  ): Promise<Extract<ServerEvent, { type: T }>> => {
    const find = () =>
      events.find((e): e is Extract<ServerEvent, { type: T }> => e.type === type && match(e as never));
    await waitFor(() => find() !== undefined, type, timeoutMs);
    return find() as Extract<ServerEvent, { type: T }>;
  };
  return { provider, client, events, until, root: join(exec, 'agentRoot') };
}

const reply = (text: string) => ({ content: [{ text }] });
const bash = (command: string) => ({ content: [{ tool_use: { name: 'Bash', input: { command } } }] });
const write = (file: string) => ({
  content: [{ tool_use: { name: 'Write', input: { file_path: file, content: `${file}\n` } } }],
});
const verdict = (repeating: boolean) =>
  reply(
    JSON.stringify({
      repeating,
      pattern: repeating ? 'the same Bash call' : '',
      advice: repeating ? 'Stop re-running it and report what you found.' : '',
    }),
  );

/** One line per event a reader needs to follow a codon's course (the halt case's trace). */
function course(events: readonly ServerEvent[]): string[] {
  return events.flatMap((e) => {
    switch (e.type) {
      case 'codon.started':
        return [`codon.started ${e.data.codonId}`];
      case 'sentinel.loaded':
      case 'sentinel.unloaded':
        return [`${e.type} ${e.data.sentinelId}`];
      case 'sentinel.output':
        return [`sentinel.output #${e.data.triggerNumber} ${JSON.stringify(e.data.content)}`];
      case 'sentinel.action':
        return [
          `sentinel.action #${e.data.triggerNumber} ${e.data.action}${e.data.dryRun ? ' (dry run)' : ''}`,
        ];
      case 'sentinel.error':
        return [`sentinel.error ${e.data.errorType}`];
      case 'codon.completed':
        return [`codon.completed ${e.data.codonId} success=${e.data.success}`];
      case 'rollback.started':
      case 'rollback.completed':
        return [e.type];
      case 'server.idle':
        return [`server.idle ${e.data.reason}`];
      default:
        return [];
    }
  });
}

describe('sentinel actions (ribosome run, scripted provider)', () => {
  it('the loop detector halts an agent repeating the same Bash call: stopped, named, nothing left running', async () => {
    const marker = `sleep ${61_000 + Math.floor(Math.random() * 9000)}`;
    markers.push(marker);
    const r = await run(
      `name: halted
agent: builtin
codons:
  - id: loop
    name: Check the service
    prompt: Keep checking the service.
    sentinels: [{ file: loop-detector.yaml }]
`,
      {
        tracks: [
          {
            name: 'loop-detector',
            match: { system: 'whether a coding agent is repeating itself' },
            whenExhausted: verdict(true),
          },
          // Forever the same call, each leaving a background sleep behind.
          {
            name: 'agent',
            match: { tools: true },
            loop: true,
            turns: [bash(`nohup ${marker} >/dev/null 2>&1 & echo checked`)],
          },
        ],
      },
      { 'loop-detector.yaml': join(ROOT, 'examples/sentinels/loop-detector.yaml') },
    );
    const halt = await r.until('sentinel.action', (e) => e.data.action === 'halt');
    const completed = await r.until('codon.completed');
    // The agent's whole tree, its background sleeps too, is gone once the codon is recorded as ended.
    expect(pidsWith(marker)).toEqual([]);
    const sentAtEnd = r.provider.requests.length;
    const idle = await r.until('server.idle', (e) => e.data.reason !== 'startup');
    await r.until('sentinel.unloaded');

    expect(halt.data).toMatchObject({
      sentinelId: 'loop-detector',
      codonId: 'loop',
      triggerNumber: 3,
      dryRun: false,
      reason: 'repeating equals true (3 times)',
    });
    expect(completed.data.success).toBe(false);
    expect(completed.data.failureReason).toMatchObject({ type: 'unknown', retriable: false });
    expect(completed.data.failureReason?.message).toMatch(
      /^stopped by sentinel loop-detector \(halt on repeating equals true \(3 times\)\); its output: \{"repeating":true,/,
    );
    // Stopped like a forceStop: the run idles, the codon stopped; nothing starts by itself.
    expect(idle.data.lastEnded).toEqual({ codonId: 'loop', status: 'stopped' });
    // Spend stops: no request (agent or sentinel) once the codon's end is recorded, and the
    // sentinel made its third call last.
    expect(r.provider.requests.length).toBe(sentAtEnd);
    const sentinelCalls = r.provider.requests.filter((q) => q.track === 'loop-detector');
    expect(sentinelCalls).toHaveLength(3);
    const afterCompleted = r.provider.requests.filter((q) => q.receivedAt > completed.timestamp);
    expect(afterCompleted).toEqual([]);

    const trace = course(r.events);
    // Its advice on the first repeat (a second one only if 30 s passed: the cooldown), the halt on the third.
    const actions = trace.filter((l) => l.startsWith('sentinel.action'));
    expect(actions[0]).toBe('sentinel.action #1 message');
    expect(actions.at(-1)).toBe('sentinel.action #3 halt');
    expect(actions.slice(1, -1).every((l) => l === 'sentinel.action #2 message')).toBe(true);
    const at = (line: string) => trace.indexOf(line);
    expect(at('sentinel.action #3 halt')).toBeLessThan(at('codon.completed loop success=false'));
    expect(at('codon.completed loop success=false')).toBeLessThan(at('server.idle codon-completed'));
    if (process.env.RIBOSOME_PRINT_TRACE) process.stdout.write(`${trace.join('\n')}\n`);
  });

  it('the cost watcher looks as spend arrives and halts a step past $2.00 before it ends (trial 17b L8)', async () => {
    const r = await run(
      `name: spending
agent: builtin
model: claude-sonnet-4-5
codons:
  - id: spender
    name: Spend
    prompt: Spend a lot.
    sentinels: [{ file: cost-watcher.yaml }]
`,
      {
        tracks: [
          {
            name: 'cost-watcher',
            match: { system: 'You watch what a coding agent spends' },
            whenExhausted: reply('HALT: $3.00 spent, all of it uncached input.'),
          },
          // Each turn reads 1 M fresh input tokens ($3 at claude-sonnet-4-5's price): the first one
          // passes $2.00. Then 40 more turns of a second each, then the answer.
          {
            name: 'agent',
            match: { firstUser: 'Spend a lot.' },
            turns: [
              { ...bash('sleep 1; echo spent'), usage: { input_tokens: 1_000_000 }, repeat: 40 },
              reply('Spent.'),
            ],
          },
        ],
      },
      { 'cost-watcher.yaml': join(ROOT, 'examples/sentinels/cost-watcher.yaml') },
    );
    const halt = await r.until('sentinel.action', (e) => e.data.action === 'halt');
    const completed = await r.until('codon.completed');
    // Its first look, on the first token.usage past $0.50, already halts: not a window (2 min) later,
    // when the step would long have ended and a halt would come too late.
    expect(halt.data).toMatchObject({ sentinelId: 'cost-watcher', codonId: 'spender', triggerNumber: 1 });
    expect(completed.data).toMatchObject({ codonId: 'spender', success: false });
    expect(completed.data.failureReason?.message).toMatch(/^stopped by sentinel cost-watcher/);
    const usage = r.events.filter((e) => e.type === 'token.usage');
    expect(usage[0]?.data.totalCost).toBeGreaterThan(2);
    expect(r.provider.requests.filter((q) => q.track === 'agent').length).toBeLessThan(41);
  });

  /** Codon `setup` writes base.txt; codon `work` writes work.txt, then echoes forever. */
  const workPlan = (actions: string, extra = '') => `name: steered
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
        output:
          type: structured
          schema:
            type: object
            properties: { repeating: { type: boolean }, pattern: { type: string }, advice: { type: string } }
            required: [repeating, pattern, advice]
        actions:
${actions}
${extra}`;
  const workScript: ScriptInput = {
    tracks: [
      { name: 'judge', match: { system: 'You judge whether' }, whenExhausted: verdict(true) },
      {
        name: 'agent-setup',
        match: { firstUser: 'Do setup.' },
        turns: [write('base.txt'), reply('Set up.')],
      },
      { name: 'agent-work-first', match: { lastUser: 'Do work.' }, loop: true, turns: [write('work.txt')] },
      { name: 'agent-work', match: { firstUser: 'Do work.' }, loop: true, turns: [bash('echo again')] },
    ],
  };

  it("rollback: the codon is stopped, the agent root goes back to the codon's start, the server idles", async () => {
    const r = await run(
      workPlan('          - { when: [{ path: repeating, op: equals, value: true }], do: rollback }'),
      workScript,
    );
    const rolled = await r.until('rollback.completed');
    const idle = await r.until('server.idle', (e) => e.timestamp >= rolled.timestamp);
    expect(existsSync(join(r.root, 'base.txt'))).toBe(true);
    expect(existsSync(join(r.root, 'work.txt'))).toBe(false);
    expect(idle.data).toMatchObject({ reason: 'codon-completed', nextCodonId: 'work' });
    const trace = course(r.events);
    expect(trace.slice(trace.indexOf('codon.started work'))).toEqual([
      'codon.started work',
      'sentinel.loaded judge',
      'sentinel.output #1 {"repeating":true,"pattern":"the same Bash call","advice":"Stop re-running it and report what you found."}',
      'sentinel.action #1 rollback',
      'sentinel.unloaded judge',
      'codon.completed work success=false',
      'rollback.started',
      'rollback.completed',
      'server.idle codon-completed',
    ]);
    // Idle for good: nothing started after the rollback (a ping round trip later, still nothing).
    await r.client.request('ping', {}, 'pong');
    expect(r.events.filter((e) => e.type === 'codon.started')).toHaveLength(2);
  });

  it('a message that renders empty is not sent (a sentinel.error), and the codon goes on (trial 17 H2)', async () => {
    const r = await run(
      workPlan(
        [
          '          - { when: [{ path: repeating, op: equals, value: false }], do: halt, after: 2 }',
          '          - { when: [{ path: repeating, op: equals, value: false }], do: message, text: "{{output.advice}}" }',
        ].join('\n'),
        '        cooldownMs: 0',
      ),
      {
        tracks: [
          { name: 'judge', match: { system: 'You judge whether' }, whenExhausted: verdict(false) },
          ...(workScript.tracks ?? []).filter((t) => t.name !== 'judge'),
        ],
      },
    );
    const failed = await r.until('sentinel.error', (e) => e.data.errorType === 'action-failed');
    expect(failed.data.message).toBe(
      'message failed: INVALID_COMMAND: the message is not sent: must not be empty',
    );
    // The halt on the second verdict still ends the codon: nothing hangs on a blank message.
    const completed = await r.until('codon.completed', (e) => e.data.codonId === 'work');
    expect(completed.data.success).toBe(false);
    expect(r.events.filter((e) => e.type === 'codon.message')).toEqual([]);
  });

  it('redo: runs the codon again once with the text added to its prompt, then not again', async () => {
    const r = await run(
      workPlan(
        [
          '          - { when: [{ path: repeating, op: equals, value: true }], do: redo, text: "Note from {{sentinel.id}}: {{output.advice}}" }',
          '          - { when: [{ path: repeating, op: equals, value: true }], do: halt }',
        ].join('\n'),
      ),
      workScript,
    );
    await r.until(
      'server.idle',
      (e) => e.data.reason === 'codon-completed' && e.data.lastEnded?.codonId === 'work',
    );
    const trace = course(r.events);
    expect(trace.slice(trace.indexOf('codon.started work'))).toEqual([
      'codon.started work',
      'sentinel.loaded judge',
      expect.stringMatching(/^sentinel.output #1 /),
      'sentinel.action #1 redo',
      'sentinel.unloaded judge',
      'codon.completed work success=false',
      'rollback.started',
      'rollback.completed',
      // No idle in between: the redo starts in the same step as the rollback.
      'codon.started work',
      'sentinel.loaded judge',
      expect.stringMatching(/^sentinel.output #1 /),
      // Its one redo is spent: the next action applies.
      'sentinel.action #1 halt',
      'sentinel.unloaded judge',
      'codon.completed work success=false',
      'server.idle codon-completed',
    ]);
    const redo = r.events.find((e) => e.type === 'sentinel.action' && e.data.action === 'redo');
    expect(redo?.type === 'sentinel.action' && redo.data.text).toBe(
      'Note from judge: Stop re-running it and report what you found.',
    );
    // The second run's first request carries the prompt with the note, the first run's does not.
    const firsts = r.provider.requests.filter((q) => q.track === 'agent-work-first');
    expect(firsts).toHaveLength(2);
    const prompts = firsts.map((q) => JSON.stringify(q.body));
    expect(prompts[0]).not.toContain('Note from judge');
    expect(prompts[1]).toContain(
      'Do work.\\n\\nNote from judge: Stop re-running it and report what you found.',
    );
  });

  it('dryRun announces and does nothing; maxActions and the cooldown bound the actions', async () => {
    const sentinel = (id: string, guards: string) => `      - id: ${id}
        model: claude-haiku-4-5
        systemPrompt: You judge whether the agent repeats itself.
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [tool.result] }
        output:
          type: structured
          schema: { type: object, properties: { repeating: { type: boolean }, advice: { type: string } } }
        actions:
          - { when: [{ path: repeating, op: equals, value: true }], do: halt, after: 6 }
          - { when: [{ path: repeating, op: equals, value: true }], do: message, text: "{{output.advice}}" }
        dryRun: true
${guards}`;
    const r = await run(
      `name: dry
agent: builtin
codons:
  - id: work
    name: Work
    prompt: Do work.
    sentinels:
${sentinel('bounded', '        maxActions: 3\n        cooldownMs: 0')}
${sentinel('cooling', '')}
`,
      {
        tracks: [
          { name: 'judge', match: { system: 'You judge whether' }, whenExhausted: verdict(true) },
          {
            name: 'agent',
            match: { tools: true },
            turns: [...[1, 2, 3, 4, 5, 6].map((n) => bash(`echo ${n}`)), reply('Done.')],
          },
        ],
      },
    );
    const completed = await r.until('codon.completed');
    await r.until('server.idle', (e) => e.data.reason === 'all-codons-completed');
    // Nothing was done: the codon ran its six calls and completed.
    expect(completed.data.success).toBe(true);
    const actions = (id: string) =>
      r.events.flatMap((e) =>
        e.type === 'sentinel.action' && e.data.sentinelId === id
          ? [`#${e.data.triggerNumber} ${e.data.action}${e.data.dryRun ? ' dry' : ''}`]
          : [],
      );
    // maxActions 3, no cooldown: three messages, the halt on the sixth verdict is one too many.
    expect(actions('bounded')).toEqual(['#1 message dry', '#2 message dry', '#3 message dry']);
    // The default cooldown (30 s) holds the messages back; the halt waits for none.
    expect(actions('cooling')).toEqual(['#1 message dry', '#6 halt dry']);
    expect(r.events.filter((e) => e.type === 'sentinel.output')).toHaveLength(12);
    expect(r.events.filter((e) => e.type === 'sentinel.error')).toEqual([]);
  });

  it('an action that cannot be taken is a sentinel.error, and the run goes on', async () => {
    const r = await run(
      `name: late
agent: builtin
codons:
  - id: a
    name: A
    prompt: Do a.
    sentinels:
      - id: late
        model: claude-haiku-4-5
        systemPrompt: You judge whether the agent repeats itself.
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [tool.result] }
        executionStrategy: { type: count, every: 100 }
        output: { type: text }
        actions:
          - { when: { regex: "." }, do: halt }
  - id: b
    name: B
    prompt: Do b.
`,
      {
        tracks: [
          { name: 'judge', match: { system: 'You judge whether' }, whenExhausted: reply('Halt it.') },
          { name: 'agent-a', match: { firstUser: 'Do a.' }, turns: [bash('echo a'), reply('Done a.')] },
          { name: 'agent-b', match: { firstUser: 'Do b.' }, turns: [write('b.txt'), reply('Done b.')] },
        ],
      },
    );
    await r.until('server.idle', (e) => e.data.reason === 'all-codons-completed');
    // The sentinel's one call comes with the codon's end (its count is never reached): too late.
    const failed = r.events.find((e) => e.type === 'sentinel.error');
    expect(failed?.type === 'sentinel.error' && failed.data).toMatchObject({
      sentinelId: 'late',
      codonId: 'a',
      errorType: 'action-failed',
      message: 'halt failed: codon a has ended (its end is being recorded)',
      retriable: false,
    });
    const completed = r.events.filter((e) => e.type === 'codon.completed');
    expect(completed.map((e) => e.type === 'codon.completed' && [e.data.codonId, e.data.success])).toEqual([
      ['a', true],
      ['b', true],
    ]);
    expect(existsSync(join(r.root, 'b.txt'))).toBe(true);
  });
});
