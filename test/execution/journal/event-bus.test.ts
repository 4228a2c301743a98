import { describe, expect, it } from 'vitest';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { EventBus } from '../../../src/execution/journal/event-bus.ts';
import { EventRedaction } from '../../../src/execution/journal/event-redaction.ts';
import { MemoryJournal } from '../../../src/execution/journal/memory-journal.ts';
import { SecretRedactor } from '../../../src/platform/credentials/secret-redactor.ts';

describe('EventBus', () => {
  it('persists before it announces, in publish order, one transaction per turn', async () => {
    const journal = new MemoryJournal();
    const appendSizes: number[] = [];
    const append = journal.append.bind(journal);
    journal.append = (entries) => {
      appendSizes.push(entries.length);
      return append(entries);
    };
    const bus = new EventBus({ journal, runId: 'run-1' });
    const seen: Array<{ type: string; countAtDelivery: number }> = [];
    bus.subscribe((e) => seen.push({ type: e.type, countAtDelivery: journal.count() }));
    const published = await Promise.all([
      bus.publish('info', { message: 'one' }),
      bus.publish('info', { message: 'two' }),
      bus.publish('server.idle', { reason: 'startup', message: 'three' }),
    ]);
    expect(appendSizes).toEqual([3]);
    expect(seen.map((s) => s.type)).toEqual(['info', 'info', 'server.idle']);
    expect(seen.every((s) => s.countAtDelivery === 3)).toBe(true);
    const stored = journal.readAfter(0, { maxEvents: 10, maxBytes: 1e6 });
    expect(stored.map((r) => JSON.parse(r.json).id)).toEqual(published.map((e) => e.id));
    expect(stored.every((r) => r.runId === 'run-1')).toBe(true);
  });

  it('under a steady stream delivers every event once, in order, each only once it is journaled', async () => {
    const journal = new MemoryJournal();
    const bus = new EventBus({ journal, runId: 'run-1' });
    const seen: Array<{ message: string; durable: boolean }> = [];
    bus.subscribe((e, json) =>
      seen.push({
        message: e.type === 'info' ? e.data.message : '',
        durable: journal.readAfter(0, { maxEvents: 1e6, maxBytes: 1e9 }).some((r) => r.json === json),
      }),
    );
    const published: Array<Promise<unknown>> = [];
    for (let turn = 0; turn < 30; turn++) {
      for (let k = 0; k < 10; k++) published.push(bus.publish('info', { message: `${turn}-${k}` }));
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(published);
    expect(seen.map((s) => s.message)).toEqual(
      Array.from({ length: 300 }, (_, i) => `${Math.floor(i / 10)}-${i % 10}`),
    );
    expect(seen.every((s) => s.durable)).toBe(true);
    // After a quiet spell, one event alone is committed and delivered too.
    await new Promise((r) => setTimeout(r, 20));
    await bus.publish('info', { message: 'alone' });
    expect(seen.at(-1)?.message).toBe('alone');
  });

  it('refuses connection events and invalid payloads without journaling them', async () => {
    const journal = new MemoryJournal();
    const bus = new EventBus({ journal, runId: 'run-1' });
    await expect(bus.publish('pong', { message: 'pong', timestamp: 'now' })).rejects.toThrow(
      /connection event/,
    );
    // @ts-expect-error a wrong payload is refused at run time too
    await expect(bus.publish('info', { text: 'wrong field' })).rejects.toThrow(/invalid info/);
    expect(journal.count()).toBe(0);
  });

  it('does not announce what it could not persist', async () => {
    const journal = new MemoryJournal();
    journal.append = () => {
      throw new Error('disk full');
    };
    const bus = new EventBus({ journal, runId: 'r' });
    const seen: ServerEvent[] = [];
    bus.subscribe((e) => seen.push(e));
    await expect(bus.publish('info', { message: 'lost?' })).rejects.toThrow('disk full');
    expect(seen).toEqual([]);
  });

  it('tags events with the run current when they are published', async () => {
    const journal = new MemoryJournal();
    const bus = new EventBus({ journal, runId: 'first' });
    const a = bus.publish('info', { message: 'a' });
    bus.setRunId('second');
    await Promise.all([a, bus.publish('info', { message: 'b' })]);
    expect(journal.readAfter(0, { maxEvents: 10, maxBytes: 1e6 }).map((r) => r.runId)).toEqual([
      'first',
      'second',
    ]);
  });

  it('once failed, refuses what is pending and everything after, without journaling it', async () => {
    const journal = new MemoryJournal();
    const bus = new EventBus({ journal, runId: 'r' });
    const seen: ServerEvent[] = [];
    bus.subscribe((e) => seen.push(e));
    const pending = bus.publish('info', { message: 'pending' });
    const fault = new Error('disk full at /x: No space left on device');
    bus.fail(fault);
    await expect(pending).rejects.toBe(fault);
    await expect(bus.publish('info', { message: 'later' })).rejects.toBe(fault);
    expect(bus.failure).toBe(fault);
    expect(journal.count()).toBe(0);
    expect(seen).toEqual([]);
  });

  it('announces an unjournaled event to every listener at once (the fatal error that journaling failed)', () => {
    const journal = new MemoryJournal();
    const bus = new EventBus({ journal, runId: 'r' });
    const batches: string[][] = [];
    const seen: string[] = [];
    bus.subscribeBatch((batch) => batches.push(batch.map((b) => b.event.type)));
    bus.subscribe((_e, json) => seen.push(JSON.parse(json).data.message));
    bus.fail(new Error('gone'));
    const event = bus.announceUnjournaled('error', {
      message: 'disk full',
      fatal: true,
      severity: 'fatal',
      code: 'STORAGE_FAILED',
    });
    expect(event.type).toBe('error');
    expect(batches).toEqual([['error']]);
    expect(seen).toEqual(['disk full']);
    expect(journal.count()).toBe(0);
    // @ts-expect-error a wrong payload is refused at run time too
    expect(() => bus.announceUnjournaled('error', { text: 'wrong' })).toThrow();
  });
});

describe('EventBus with the server secrets', () => {
  const KEY = 'sk-planted-0123456789abcdef';
  const redacting = () => {
    const secrets = new SecretRedactor();
    secrets.add('OPENAI_API_KEY', KEY);
    const journal = new MemoryJournal();
    const bus = new EventBus({ journal, runId: 'run-1', redaction: new EventRedaction(secrets) });
    const sent: string[] = [];
    bus.subscribe((_event, json) => sent.push(json));
    const stored = () => journal.readAfter(0, { maxEvents: 100, maxBytes: 1e6 }).map((r) => r.json);
    return { bus, sent, stored };
  };

  it('journals and sends no event that holds a key: tool results, tool inputs, agent text', async () => {
    const { bus, sent, stored } = redacting();
    const published = await bus.publish('tool.result', {
      codonId: 'one',
      toolUseId: 't1',
      toolName: 'Bash',
      result: `OPENAI_API_KEY=${KEY}\n`,
      truncated: false,
      originalLength: 44,
      executionTimeMs: 1,
      isError: false,
    });
    await bus.publish('assistant.action', {
      codonId: 'one',
      action: 'tool_use',
      content: `Bash echo ${KEY}`,
      toolName: 'Bash',
      toolInput: { command: `echo ${KEY}` },
    });
    await bus.publish('info', { message: 'nothing secret' });
    for (const json of [...stored(), ...sent]) expect(json).not.toContain(KEY);
    expect(stored()).toEqual(sent);
    expect(published.data.result).toBe('OPENAI_API_KEY=[redacted:OPENAI_API_KEY]\n');
    expect(JSON.parse(stored()[1] ?? '{}').data.toolInput).toEqual({
      command: 'echo [redacted:OPENAI_API_KEY]',
    });
    expect(JSON.parse(stored()[2] ?? '{}').data.message).toBe('nothing secret');
    // A transition is stored the same way.
    expect(bus.redact({ failureReason: { message: `died with ${KEY}` } })).toEqual({
      failureReason: { message: 'died with [redacted:OPENAI_API_KEY]' },
    });
  });

  it("a key cut between two chunks of a gate's output is whole in no event", async () => {
    const { bus, stored } = redacting();
    const base = { codonId: 'one', gate: 0 };
    await bus.publish('verify.started', { ...base, gates: 1, command: 'env', cwd: '.', round: 0 });
    await bus.publish('verify.output', { ...base, stream: 'stdout', text: `KEY=${KEY.slice(0, 10)}` });
    await bus.publish('verify.output', { ...base, stream: 'stdout', text: `${KEY.slice(10)}\nok\n` });
    const texts = stored()
      .map((json) => JSON.parse(json))
      .filter((e) => e.type === 'verify.output')
      .map((e) => e.data.text as string);
    expect(texts).toEqual([`KEY=${KEY.slice(0, 10)}`, '[redacted:OPENAI_API_KEY]\nok\n']);
  });
});
