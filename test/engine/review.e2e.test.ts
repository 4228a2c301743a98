/**
 * Review comments and reviews end to end (docs/review.md): a real server on a scripted provider this
 * test runs (every request the agent makes is seen), the built-in agent, real git checkpoints. Comments
 * on codon two's diff are quoted by the server; a review sent to `redo`, `message` or `next` reaches
 * the agent's request with the files, lines and quotes.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CommandError, RibosomeClient } from '../../src/core/client/index.ts';
import type { CommandInput, ServerEvent } from '../../src/core/protocol/index.ts';
import type { ScriptInput } from '../../src/llm/mock-provider/script-schema.ts';
import { type MockProvider, startMockProvider } from '../../src/llm/mock-provider/server.ts';
import { B_AFTER, B_BEFORE, bash, REVIEW_PLAN, reply, reviewScript, write } from '../helpers/review-plan.ts';
import { journalRows, killAll, type ServerProcess, startServer, tempDir } from '../helpers/server-process.ts';

const temps: Array<{ remove(): void }> = [];
const clients: RibosomeClient[] = [];
const providers: MockProvider[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  killAll();
  await Promise.all(providers.splice(0).map((p) => p.stop()));
});
afterAll(() => {
  for (const t of temps.splice(0)) t.remove();
});

const TIMEOUT = 240_000;
const WAIT = 120_000;

const A_NEW = 'a1\na2\na3\na4\na5\n';

/** Codon one writes b.txt; two writes a.txt (new) and changes line 3 of b.txt; three answers. */
const script = (two?: ScriptInput['turns']): ScriptInput =>
  reviewScript({ path: 'a.txt', content: A_NEW }, two);

async function setUp(s: ScriptInput) {
  const t = tempDir();
  temps.push(t);
  writeFileSync(join(t.path, 'plan.yaml'), REVIEW_PLAN);
  const provider = await startMockProvider({ script: s });
  providers.push(provider);
  const exec = join(t.path, 'exec');
  mkdirSync(exec, { recursive: true });
  const start = async (extra: string[] = ['--no-autostart']) => {
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
    const run = async (codonId: string) => {
      const done = client.next('codon.completed', (e) => e.data.codonId === codonId, WAIT);
      client.send('codon.next');
      expect((await done).data.success).toBe(true);
    };
    const comment = (data: CommandInput<'review.comment'>) =>
      client.request('review.comment', data, 'review.comment', {
        timeoutMs: WAIT,
        match: (e) => e.data.author.kind === 'client' && e.data.author.clientId === client.clientId,
      });
    const submit = (data: CommandInput<'review.submit'>) =>
      client.request('review.submit', data, 'review.sent', { timeoutMs: WAIT });
    return { server, client, events, run, comment, submit };
  };
  return { provider, exec, root: join(exec, 'agentRoot'), start };
}

async function refusal(promise: Promise<unknown>): Promise<CommandError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CommandError);
  return error as CommandError;
}

/** The first request the agent made on a track, as JSON text. */
function firstRequest(provider: MockProvider, track: string): string {
  const request = provider.requests.find((q) => q.track === track);
  expect(request, `a request on track ${track}`).toBeDefined();
  return JSON.stringify(request?.body);
}

const crash = async (server: ServerProcess) => {
  server.kill('SIGKILL');
  await server.exited;
};

describe('review comments and review.submit', () => {
  it('comments on two line ranges of codon two (new and old side), refuses what its diff lacks, and a redo runs two again from its start with both in its prompt', {
    timeout: TIMEOUT,
  }, async () => {
    const s = await setUp(script());
    const c = await s.start();
    await c.run('one');
    await c.run('two');

    const onNew = await c.comment({
      codonId: 'two',
      file: 'a.txt',
      lines: { start: 2, end: 3 },
      text: 'NEW-SIDE: why a2?',
    });
    expect(onNew.data).toMatchObject({
      codonId: 'two',
      file: 'a.txt',
      side: 'new',
      lines: { start: 2, end: 3 },
      hunk: '+a1\n+a2\n+a3\n+a4',
      author: { kind: 'client', clientId: c.client.clientId },
    });
    const onOld = await c.comment({
      codonId: 'two',
      file: 'b.txt',
      side: 'old',
      lines: { start: 3, end: 3 },
      text: 'OLD-SIDE: keep b3',
    });
    expect(onOld.data.hunk).toBe(' b2\n-b3\n+B3 changed');

    // What the diff does not have, and bad input.
    const outside = await refusal(
      c.comment({ codonId: 'two', file: 'a.txt', lines: { start: 30, end: 31 }, text: 'x' }),
    );
    expect(outside.code).toBe('UNKNOWN_COMMENT');
    expect(outside.message).toContain('a.txt has changed lines 1-5 (new side)');
    const noFile = await refusal(
      c.comment({ codonId: 'two', file: 'zzz.txt', lines: { start: 1, end: 1 }, text: 'x' }),
    );
    expect(noFile.code).toBe('UNKNOWN_COMMENT');
    const noCodon = await refusal(
      c.comment({ codonId: 'nine', file: 'a.txt', lines: { start: 1, end: 1 }, text: 'x' }),
    );
    expect(noCodon.code).toBe('UNKNOWN_CODON');
    expect(noCodon.message).toContain('one, two, three');
    const empty = await refusal(
      c.comment({ codonId: 'two', file: 'a.txt', lines: { start: 1, end: 1 }, text: '  ' }),
    );
    expect(empty.code).toBe('INVALID_COMMAND');
    const unknownId = await refusal(c.submit({ codonId: 'two', to: 'redo', commentIds: ['comment-nope'] }));
    expect(unknownId.code).toBe('UNKNOWN_COMMENT');
    expect(unknownId.message).toContain(onNew.data.commentId);
    const readonly = await RibosomeClient.connect(c.server.url, { mode: 'readonly' });
    clients.push(readonly);
    const ro = await refusal(
      readonly.request('review.submit', { codonId: 'two', to: 'redo' }, 'review.sent', { timeoutMs: WAIT }),
    );
    expect(ro.code).toBe('INSUFFICIENT_PERMISSIONS');

    expect(existsSync(join(s.root, 'a.txt'))).toBe(true);
    const redone = c.client.next('codon.completed', (e) => e.data.codonId === 'two', WAIT);
    const sent = await c.submit({ codonId: 'two', to: 'redo', note: 'Please fix these.' });
    expect(sent.data).toMatchObject({
      codonId: 'two',
      to: 'redo',
      commentIds: [onNew.data.commentId, onOld.data.commentId],
      targetCodonId: 'two',
      by: { kind: 'client', clientId: c.client.clientId },
    });
    expect((await redone).data.success).toBe(true);

    // From its start: codon two's first writes are gone, codon one's b.txt is back.
    expect(existsSync(join(s.root, 'a.txt'))).toBe(false);
    expect(readFileSync(join(s.root, 'b.txt'), 'utf8')).toBe(B_BEFORE);
    expect(existsSync(join(s.root, 'redone.txt'))).toBe(true);
    const asked = firstRequest(s.provider, 'redo');
    for (const part of [
      'Do two.',
      'Please fix these.',
      'a.txt, lines 2-3 (new side',
      '+a1\\n+a2\\n+a3\\n+a4',
      'NEW-SIDE: why a2?',
      'b.txt, line 3 (old side',
      ' b2\\n-b3\\n+B3 changed',
      'OLD-SIDE: keep b3',
    ])
      expect(asked).toContain(part);

    // Both are sent: a review without ids has none left to send.
    const none = await refusal(c.submit({ codonId: 'two', to: 'next' }));
    expect(none.code).toBe('INVALID_COMMAND');
    const rows = journalRows(s.exec);
    expect(rows.filter((r) => r.type === 'review.sent')).toHaveLength(1);
    expect(rows.find((r) => r.type === 'codon.message')?.data).toMatchObject({
      codonId: 'two',
      delivery: 'prompt',
      from: { kind: 'client', clientId: c.client.clientId },
    });

    // Rolled back to its start, two has no end in this run: from and to may still name the earlier run's.
    await c.client.request(
      'rollback.toCodon',
      { codonId: 'two', checkpointType: 'start' },
      'rollback.completed',
      {
        timeoutMs: WAIT,
      },
    );
    const gone = await refusal(
      c.comment({ codonId: 'two', file: 'a.txt', lines: { start: 1, end: 1 }, text: 'x' }),
    );
    expect(gone.code).toBe('CHECKPOINT_NOT_FOUND');
    expect(gone.message).toContain('give from and to (its checkpoints, e.g. from checkpoint.list)');
    const earlier = await c.comment({
      codonId: 'two',
      from: onNew.data.from,
      to: onNew.data.to,
      file: 'a.txt',
      lines: { start: 1, end: 1 },
      text: 'on the earlier run',
    });
    expect(earlier.data.to).toBe(onNew.data.to);
  });

  it('message: the running agent’s next request carries the review; with nothing running it is refused', {
    timeout: TIMEOUT,
  }, async () => {
    const s = await setUp(
      script([bash('while [ ! -f go ]; do sleep 0.1; done; echo waited'), reply('Two done.')]),
    );
    const c = await s.start();
    await c.run('one');
    await c.comment({ codonId: 'one', file: 'b.txt', lines: { start: 1, end: 2 }, text: 'MESSAGE-ME' });
    const idle = await refusal(c.submit({ codonId: 'one', to: 'message' }));
    expect(idle.code).toBe('NO_CODON_RUNNING');
    expect(idle.message).toContain('next');

    const waiting = c.client.next('assistant.action', (e) => e.data.toolName === 'Bash', WAIT);
    c.client.send('codon.next');
    await waiting;
    const heard = c.client.next('codon.message', (e) => e.data.codonId === 'two', WAIT);
    const sent = await c.submit({ codonId: 'one', to: 'message' });
    expect(sent.data).toMatchObject({ to: 'message', targetCodonId: 'two' });
    expect((await heard).data.delivery).toBe('live');
    const completed = c.client.next('codon.completed', (e) => e.data.codonId === 'two', WAIT);
    writeFileSync(join(s.root, 'go'), '');
    await completed;
    const asked = firstRequest(s.provider, 'heard');
    expect(asked).toContain('b.txt, lines 1-2 (new side');
    expect(asked).toContain('MESSAGE-ME');
    expect(existsSync(join(s.root, 'heard.txt'))).toBe(true);
  });

  it('next: codon three’s first request carries the review, even after a kill -9 and a restart', {
    timeout: TIMEOUT,
  }, async () => {
    const s = await setUp(script());
    const first = await s.start();
    await first.run('one');
    await first.run('two');
    await first.comment({
      codonId: 'two',
      file: 'a.txt',
      lines: { start: 5, end: 5 },
      text: 'NEXT-ONE: a5 is odd',
    });
    const sent = await first.submit({ codonId: 'two', to: 'next' });
    expect(sent.data).toMatchObject({ to: 'next', targetCodonId: 'three' });
    await crash(first.server);

    const second = await s.start();
    await second.run('three');
    // Its prompt holds "Review of the changes of codon two": the redo track answers it, as it may.
    const request = s.provider.requests.find((q) => JSON.stringify(q.body).includes('Do three.'));
    const asked = JSON.stringify(request?.body);
    expect(asked).toContain('Do three.');
    expect(asked).toContain('a.txt, line 5 (new side');
    expect(asked).toContain('NEXT-ONE: a5 is odd');
    // Taken once: journaled as the prompt of three.
    const prompts = journalRows(s.exec).filter(
      (r) => r.type === 'codon.message' && r.data.delivery === 'prompt',
    );
    expect(prompts.map((r) => r.data.codonId)).toEqual(['three']);
  });
});

describe('a review’s redo of the running codon', () => {
  it('stops it, rolls it back to its start and runs it again with the review in its prompt', {
    timeout: TIMEOUT,
  }, async () => {
    const marker = `sleep ${61_000 + Math.floor(Math.random() * 9000)}`;
    // Two's first run writes a.txt; its second (codon.redo) hangs in Bash until the review's redo stops it.
    const s = await setUp(
      script([
        write('a.txt', A_NEW),
        write('b.txt', B_AFTER),
        reply('Two done.'),
        bash(marker),
        reply('never'),
      ]),
    );
    const c = await s.start();
    await c.run('one');
    await c.run('two');
    const made = await c.comment({
      codonId: 'two',
      file: 'a.txt',
      lines: { start: 1, end: 1 },
      text: 'RUNNING-REDO: a1?',
    });
    const hanging = c.client.next('assistant.action', (e) => e.data.toolName === 'Bash', WAIT);
    c.client.send('codon.redo');
    await hanging;
    // The comment is on two's earlier run now: a review without ids leaves it, one naming it sends it.
    const stale = await refusal(c.submit({ codonId: 'two', to: 'redo' }));
    expect(stale.code).toBe('INVALID_COMMAND');
    expect(stale.message).toContain('the 1 not sent is on an earlier run: name it');
    const stopped = c.client.next('codon.completed', (e) => e.data.codonId === 'two', WAIT);
    const sent = await c.submit({ codonId: 'two', to: 'redo', commentIds: [made.data.commentId] });
    expect(sent.data).toMatchObject({ to: 'redo', targetCodonId: 'two' });
    const ended = await stopped;
    expect(ended.data.success).toBe(false);
    expect(ended.data.failureReason?.message).toContain('to redo it with a review');
    const redone = await c.client.next(
      'codon.completed',
      (e) => e.data.codonId === 'two' && e.data.success,
      WAIT,
    );
    expect(redone.data.success).toBe(true);
    expect(existsSync(join(s.root, 'a.txt'))).toBe(false);
    expect(firstRequest(s.provider, 'redo')).toContain('RUNNING-REDO: a1?');
    const kinds = journalRows(s.exec).map((r) => r.type);
    expect(kinds.indexOf('review.sent')).toBeLessThan(kinds.lastIndexOf('rollback.completed'));
  });
});

describe('a sentinel’s comment action', () => {
  it('journals a review.comment on the codon’s diff, by the sentinel, once the codon has ended', {
    timeout: TIMEOUT,
  }, async () => {
    const t = tempDir();
    temps.push(t);
    writeFileSync(
      join(t.path, 'plan.yaml'),
      `name: commented
agent: builtin
codons:
  - id: one
    name: One
    prompt: Do one.
    sentinels:
      - id: lint
        model: claude-haiku-4-5
        systemPrompt: You lint what the agent writes.
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [tool.result], conditions: [{ path: data.toolName, op: equals, value: Write }] }
        output: { type: text }
        actions:
          - when: { regex: "^LINT" }
            do: comment
            file: b.txt
            lines: { start: 2, end: 3 }
            text: "lint says: {{output}}"
`,
    );
    const provider = await startMockProvider({
      script: {
        tracks: [
          {
            name: 'lint',
            match: { system: 'You lint what the agent writes.' },
            whenExhausted: reply('LINT: b2 is odd'),
          },
          // The agent waits for the sentinel's verdict before it ends: the comment comes while it runs.
          {
            name: 'one',
            match: { firstUser: 'Do one.' },
            turns: [write('b.txt', B_BEFORE), bash('sleep 2'), reply('One done.')],
          },
        ],
      },
    });
    providers.push(provider);
    const exec = join(t.path, 'exec');
    mkdirSync(exec, { recursive: true });
    const server = await startServer(
      join(t.path, 'plan.yaml'),
      exec,
      ['--provider-base-url', provider.url],
      30_000,
      {
        ANTHROPIC_API_KEY: 'test-key',
      },
    );
    const client = await RibosomeClient.connect(server.url, {
      mode: 'readandwrite',
      sendPreviousEvents: true,
    });
    clients.push(client);
    const commented = await client.next('review.comment', () => true, WAIT);
    expect(commented.data).toMatchObject({
      codonId: 'one',
      file: 'b.txt',
      side: 'new',
      lines: { start: 2, end: 3 },
      hunk: '+b1\n+b2\n+b3\n+b4',
      text: 'lint says: LINT: b2 is odd',
      author: { kind: 'sentinel', sentinelId: 'lint' },
    });
    const rows = journalRows(exec);
    const at = (type: string) => rows.findIndex((r) => r.type === type);
    expect(at('sentinel.action')).toBeLessThan(at('codon.completed'));
    expect(at('codon.completed')).toBeLessThan(at('review.comment'));
  });
});
