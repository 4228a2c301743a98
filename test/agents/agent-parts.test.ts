import { describe, expect, it } from 'vitest';
import { appendPrompt, finalText, toolUsesOf } from '../../src/agents/builtin/conversation.ts';
import { decideRetry, MAX_RETRY_DELAY_MS, retryCategory } from '../../src/agents/builtin/retry-policy.ts';
import { createFileSessionStore, createMemorySessionStore } from '../../src/agents/builtin/session-store.ts';
import { createUsageTally } from '../../src/agents/builtin/usage-tally.ts';
import { llmError } from '../../src/llm/errors.ts';
import type { MessageParam } from '../../src/llm/schemas.ts';
import { makeTempRoot } from './helpers/temp-root.ts';

describe('decideRetry', () => {
  const http = (status: number, retryAfterMs: number | null = null) =>
    llmError('LLM_HTTP_ERROR', 'x', { status, retryAfterMs });

  it('retries retryable errors up to maxRetries, honouring retry-after', () => {
    expect(decideRetry(http(429, 1500), 1, 2)).toEqual({ retry: true, delayMs: 1500 });
    expect(decideRetry(http(429, 0), 2, 2)).toEqual({ retry: true, delayMs: 0 });
    expect(decideRetry(http(429, 0), 3, 2)).toEqual({ retry: false });
    expect(decideRetry(http(500), 1, 0)).toEqual({ retry: false });
  });

  it('backs off exponentially without retry-after, and gives up on a retry-after beyond the bound', () => {
    expect(decideRetry(http(529), 1, 5)).toEqual({ retry: true, delayMs: 500 });
    expect(decideRetry(http(529), 3, 5)).toEqual({ retry: true, delayMs: 2000 });
    expect(decideRetry(http(529), 10, 20)).toEqual({ retry: true, delayMs: 8000 });
    expect(decideRetry(http(429, MAX_RETRY_DELAY_MS + 1), 1, 2)).toEqual({ retry: false });
  });

  it('never retries client errors or aborts', () => {
    expect(decideRetry(http(400), 1, 5)).toEqual({ retry: false });
    expect(decideRetry(llmError('LLM_ABORTED', 'x'), 1, 5)).toEqual({ retry: false });
    expect(decideRetry(llmError('LLM_NETWORK_ERROR', 'x'), 1, 5)).toMatchObject({ retry: true });
  });

  it('names error categories as Claude Code does', () => {
    expect(retryCategory(http(429))).toBe('rate_limit');
    expect(retryCategory(http(500))).toBe('server_error');
    expect(retryCategory(http(529))).toBe('overloaded');
    expect(retryCategory(llmError('LLM_NETWORK_ERROR', 'x'))).toBe('connection_error');
  });
});

describe('appendPrompt', () => {
  it('starts a conversation', () => {
    expect(appendPrompt([], 'go')).toEqual([{ role: 'user', content: [{ type: 'text', text: 'go' }] }]);
  });

  it('answers tool calls an interrupted run left open, in the same user turn as the prompt', () => {
    const history: MessageParam[] = [
      { role: 'user', content: 'first' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }],
      },
    ];
    expect(appendPrompt(history, 'next').at(-1)).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 't1',
          content: 'Interrupted: the tool never ran.',
          is_error: true,
        },
        { type: 'text', text: 'next' },
      ],
    });
  });

  it('extends a trailing user turn instead of adding a second one', () => {
    const history: MessageParam[] = [{ role: 'user', content: 'first' }];
    expect(appendPrompt(history, 'again')).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'again' },
        ],
      },
    ]);
  });

  it('picks tool uses and final text out of content', () => {
    const content = [
      { type: 'text' as const, text: 'a' },
      { type: 'tool_use' as const, id: 't', name: 'Read', input: {} },
      { type: 'text' as const, text: 'b' },
    ];
    expect(toolUsesOf(content).map((block) => block.id)).toEqual(['t']);
    expect(finalText(content)).toBe('a\nb');
  });
});

describe('createUsageTally', () => {
  it('sums usage per model and prices it', () => {
    const tally = createUsageTally();
    tally.add('claude-sonnet-4-5', { input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 500 });
    tally.add('claude-sonnet-4-5', {
      input_tokens: 2000,
      output_tokens: 200,
      cache_creation_input_tokens: null,
    });
    tally.add('claude-haiku-4-5', { input_tokens: 10, output_tokens: 1 });
    const totals = tally.totals();
    expect(totals.usage).toMatchObject({
      input_tokens: 3010,
      output_tokens: 301,
      cache_read_input_tokens: 500,
    });
    expect(totals.modelUsage['claude-sonnet-4-5']).toMatchObject({
      inputTokens: 3000,
      outputTokens: 300,
      cacheReadInputTokens: 500,
    });
    expect(totals.modelUsage['claude-sonnet-4-5']?.costUSD).toBeCloseTo(
      (3000 * 3 + 300 * 15 + 500 * 0.3) / 1e6,
      12,
    );
    expect(totals.totalCostUsd).toBeCloseTo((3000 * 3 + 300 * 15 + 500 * 0.3 + 10 * 1 + 1 * 5) / 1e6, 12);
    expect(totals.estimated).toBe(false);
  });
});

describe('session stores', () => {
  const session = {
    version: 1 as const,
    sessionId: '3f0c5a7e-1111-4222-8333-944444444444',
    model: 'm',
    cwd: '/x',
    createdAt: 'a',
    updatedAt: 'b',
    messages: [{ role: 'user' as const, content: 'hi' }],
  };

  it('file store round-trips a session and refuses unknown, malformed and path-like ids', async () => {
    const temp = await makeTempRoot();
    try {
      const store = createFileSessionStore(`${temp.dir}/sessions`);
      await store.save(session);
      expect(await store.load(session.sessionId)).toEqual({ ok: true, session });
      expect(await store.load('3f0c5a7e-1111-4222-8333-000000000000')).toMatchObject({
        ok: false,
        error: { code: 'SESSION_NOT_FOUND' },
      });
      expect(await store.load('../../etc/passwd')).toMatchObject({
        ok: false,
        error: { code: 'SESSION_ID_INVALID' },
      });
      const { writeFile } = await import('node:fs/promises');
      await writeFile(`${temp.dir}/sessions/${session.sessionId}.json`, '{"broken"');
      expect(await store.load(session.sessionId)).toMatchObject({
        ok: false,
        error: { code: 'SESSION_CORRUPT' },
      });
    } finally {
      await temp.cleanup();
    }
  });

  it('memory store keeps copies', async () => {
    const store = createMemorySessionStore();
    await store.save(session);
    const loaded = await store.load(session.sessionId);
    expect(loaded).toEqual({ ok: true, session });
  });
});
