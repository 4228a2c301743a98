import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastModel, lastTotals } from '../../../src/agents/codex/codex-session.ts';
import {
  CodexTranslator,
  STILL_RUNNING,
  statusOf,
  TURN_FAILED,
} from '../../../src/agents/codex/codex-translator.ts';
import { ENDED_FROM_OUTSIDE, type StreamLine } from '../../../src/agents/stream-line.ts';
import { StreamMapper } from '../../../src/engine/stream-mapper.ts';

/**
 * Fixtures: the stdout of the real codex-cli 0.171 (`codex exec --json`) against a local fake Responses
 * server, as captured.
 */
const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../fixtures/codex', name), 'utf8');

function translate(name: string, translator = new CodexTranslator({ model: 'gpt-5.5' })): StreamLine[] {
  const out: StreamLine[] = [];
  for (const text of fixture(name).split('\n')) {
    if (text.trim() === '') continue;
    const parsed = translator.line(text);
    if (!parsed.ok) throw new Error(`${name}: ${parsed.error}: ${text}`);
    out.push(...parsed.lines);
  }
  out.push(...translator.end());
  return out;
}

const result = (lines: StreamLine[]) => {
  const last = lines.at(-1);
  if (last?.type !== 'result') throw new Error(`no result last: ${JSON.stringify(last)}`);
  return last;
};

describe('CodexTranslator on real Codex output', () => {
  it('a turn with reasoning, a failing command, a file change and a message', () => {
    const lines = translate('tool-turn.jsonl');
    expect(lines[0]).toEqual({
      type: 'system',
      subtype: 'init',
      session_id: '01a219c1-cb4f-7e22-b4ee-5397b726f260',
      model: 'gpt-5.5',
    });
    const blocks = lines.flatMap((l) =>
      l.type === 'assistant' || l.type === 'user' ? (l.message.content as Array<{ type: string }>) : [],
    );
    expect(blocks).toEqual([
      { type: 'thinking', thinking: 'Check the tree, then add notes.' },
      {
        type: 'tool_use',
        id: '01a219c1-cb4f-7e22-b4ee-5397b726f260:1:item_1',
        name: 'command_execution',
        input: { command: "/bin/bash -lc 'ls missing-dir'" },
      },
      {
        type: 'tool_result',
        tool_use_id: '01a219c1-cb4f-7e22-b4ee-5397b726f260:1:item_1',
        content: "ls: cannot access 'missing-dir': No such file or directory\n",
        is_error: true,
      },
      {
        type: 'tool_use',
        id: '01a219c1-cb4f-7e22-b4ee-5397b726f260:1:item_2',
        name: 'file_change',
        input: {
          path: '/tmp/cx18/rich/work/notes.txt',
          changes: [{ path: '/tmp/cx18/rich/work/notes.txt', kind: 'add' }],
        },
      },
      {
        type: 'tool_result',
        tool_use_id: '01a219c1-cb4f-7e22-b4ee-5397b726f260:1:item_2',
        content: 'add /tmp/cx18/rich/work/notes.txt',
        is_error: false,
      },
      { type: 'text', text: 'Added notes.txt; missing-dir does not exist.' },
    ]);
    const usageLine = lines.at(-2);
    // OpenAI counts cached input within input_tokens; the engine (Anthropic's terms) apart.
    const usage = {
      input_tokens: 160,
      output_tokens: 20,
      cache_read_input_tokens: 40,
      cache_creation_input_tokens: 0,
    };
    expect(usageLine).toMatchObject({ type: 'assistant', message: { model: 'gpt-5.5', content: [], usage } });
    expect(result(lines)).toMatchObject({
      subtype: 'success',
      is_error: false,
      result: 'Added notes.txt; missing-dir does not exist.',
      session_id: '01a219c1-cb4f-7e22-b4ee-5397b726f260',
      usage,
    });
  });

  it('the default model in code mode shows the same items (a command run from its exec tool)', () => {
    const lines = translate('code-mode-turn.jsonl', new CodexTranslator({ model: 'gpt-6.2-sol' }));
    const tools = lines
      .flatMap((l) => (l.type === 'assistant' ? l.message.content : []))
      .filter((b) => b.type === 'tool_use');
    expect(tools).toHaveLength(1);
    expect(lines.filter((l) => l.type === 'user')).toHaveLength(1);
    expect(result(lines).is_error).toBe(false);
  });

  it('a resumed run counts its own tokens: the session totals before it are subtracted', () => {
    const before = lastTotals(fixture('rollout-token-counts.jsonl').split('\n').slice(0, 2).join('\n'));
    expect(before).toMatchObject({ input_tokens: 200, cached_input_tokens: 40, output_tokens: 20 });
    const lines = translate(
      'resumed-turn.jsonl',
      new CodexTranslator({ model: 'gpt-5.5', ...(before ? { before } : {}) }),
    );
    expect(result(lines).usage).toEqual({
      input_tokens: 80,
      output_tokens: 10,
      cache_read_input_tokens: 20,
      cache_creation_input_tokens: 0,
    });
    // Without the totals, the whole session's.
    expect(result(translate('resumed-turn.jsonl')).usage?.output_tokens).toBe(30);
  });

  it.each([
    ['error-429.jsonl', 429],
    ['error-429-in-stream.jsonl', 429],
    ['error-500.jsonl', 500],
    ['error-503.jsonl', 503],
    ['error-400.jsonl', 400],
    ['missing-key.jsonl', null],
  ])('%s: a failed result with the HTTP status %s', (name, status) => {
    const lines = translate(name);
    const last = result(lines);
    expect(last).toMatchObject({ is_error: true, api_error_status: status });
    expect(lines.filter((l) => l.type === 'result')).toHaveLength(1);
  });

  it('a failed turn still counts what its answered requests spent (the totals Codex recorded)', () => {
    const sessions: string[] = [];
    const translator = new CodexTranslator({
      model: 'gpt-5.5',
      before: { input_tokens: 100, cached_input_tokens: 0, cache_write_input_tokens: 0, output_tokens: 10 },
      readTotals: (id) => {
        sessions.push(id);
        return {
          input_tokens: 600,
          cached_input_tokens: 100,
          cache_write_input_tokens: 0,
          output_tokens: 60,
        };
      },
    });
    const lines = translate('error-429.jsonl', translator);
    expect(sessions).toEqual(['01a219b6-8462-7a43-8c4d-5a6402d0fc10']);
    const usage = {
      input_tokens: 400,
      output_tokens: 50,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 0,
    };
    expect(lines.at(-2)).toMatchObject({ type: 'assistant', message: { content: [], usage } });
    expect(result(lines)).toMatchObject({ is_error: true, api_error_status: 429, usage });
  });

  it('a run stopped in its tool call counts the response that asked for it, from its token_usage_record (trial 18 M3)', () => {
    // Codex writes a response's token_usage_record as the response ends, its token_count only once
    // the tools it asked for are done: a stop meanwhile leaves the record alone.
    const rollout = fixture('rollout-stopped.jsonl');
    expect(rollout).not.toContain('"token_count"');
    // What a restarted server asks of a session its predecessor left (AgentAdapter.spentIn).
    expect(lastModel(rollout)).toBe('gpt-6.2-sol');
    const translator = new CodexTranslator({ model: 'gpt-6.2-sol', readTotals: () => lastTotals(rollout) });
    // The stopped run's output: its thread, its turn and the command it was running; then SIGTERM.
    const lines = [
      '{"type":"thread.started","thread_id":"01a21a5f-9740-74a3-8fbe-cbbd7b617e76"}',
      '{"type":"turn.started"}',
      '{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"sleep 300","aggregated_output":"","exit_code":null,"status":"in_progress"}}',
    ].flatMap((text) => {
      const parsed = translator.line(text);
      return parsed.ok ? parsed.lines : [];
    });
    lines.push(...translator.end());
    const usage = {
      input_tokens: 1000,
      output_tokens: 100,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    expect(lines.at(-2)).toMatchObject({ type: 'assistant', message: { content: [], usage } });
    expect(result(lines)).toMatchObject({ is_error: true, usage });
    const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 100, costReported: false });
    for (const line of lines) mapper.map(line);
    expect(mapper.totalCost).toBeGreaterThan(0);
  });

  it("Codex's own retries become api_retry lines (info events), with the status", () => {
    const retries = translate('error-429.jsonl').filter(
      (l) => l.type === 'system' && l.subtype === 'api_retry',
    );
    expect(retries).toEqual([
      {
        type: 'system',
        subtype: 'api_retry',
        attempt: 1,
        max_retries: 1,
        error: 'exceeded retry limit, last status: 429 Too Many Requests',
        error_status: 429,
      },
    ]);
  });

  it('a rate limit in the stream keeps its wait for the retry policy', () => {
    expect(result(translate('error-429-in-stream.jsonl'))).toMatchObject({ retry_after_ms: 1500 });
  });

  it('gives up on a provider it cannot reach at the second refused connection, once', () => {
    let gaveUp = 0;
    const lines = translate(
      'unreachable.jsonl',
      new CodexTranslator({ model: 'gpt-5.5', onGiveUp: () => gaveUp++ }),
    );
    expect(gaveUp).toBe(1);
    const results = lines.filter((l) => l.type === 'result');
    expect(results).toHaveLength(1);
    expect(result(lines)).toMatchObject({
      is_error: true,
      api_error_status: null,
      result: 'the provider could not be reached (Connection failed: error sending request)',
    });
  });

  it('a Codex that died mid-turn gets a failed result at the end, naming its last error', () => {
    const translator = new CodexTranslator({ model: 'gpt-5.5' });
    translator.line('{"type":"thread.started","thread_id":"t1"}');
    translator.line('{"type":"error","message":"unexpected status 502 Bad Gateway: boom"}');
    expect(translator.end()).toEqual([
      {
        type: 'result',
        subtype: 'error_during_execution',
        is_error: true,
        result: 'Codex exited without finishing its turn: unexpected status 502 Bad Gateway: boom',
        api_error_status: 502,
        session_id: 't1',
      },
    ]);
  });

  it('a command Codex stopped waiting for (after 30 s) gets a result saying so when its turn ends (trial 18 L1)', () => {
    // yielded-command.jsonl: `sleep 40` with yield_time_ms 600000; Codex answered "Slept." at 30 s.
    const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 1000, costReported: false });
    const events = translate('yielded-command.jsonl')
      .flatMap((l) => mapper.map(l))
      .flatMap((o) => (o.kind === 'event' ? [o.event] : []));
    expect(events.map((e) => (e.type === 'assistant.action' ? e.data.action : e.type))).toEqual([
      'tool_use',
      'message',
      'tool.result',
      'token.usage',
      'token.usage',
    ]);
    expect(events[2]).toMatchObject({
      type: 'tool.result',
      data: {
        toolUseId: '01a21a6e-831c-7482-a582-026775bd5776:1:item_0',
        toolName: 'command_execution',
        isError: true,
        result: STILL_RUNNING,
      },
    });
  });

  it('a call open when the run is ended from outside, or the turn failed, is closed without blaming the 30 s limit (retrial 18 L1)', () => {
    const [thread, , started] = fixture('yielded-command.jsonl').split('\n');
    const openCall = () => {
      const translator = new CodexTranslator({ model: 'm' });
      translator.line(thread ?? '');
      translator.line(started ?? '');
      return translator;
    };
    const closing = (lines: StreamLine[]) =>
      lines.flatMap((l) =>
        l.type === 'user' ? (l.message.content as Array<{ content?: unknown }>).map((c) => c.content) : [],
      );
    // A stop, halt, timeout or crash: the process ends with no turn.completed.
    const stopped = openCall().end();
    expect(stopped.map((l) => l.type)).toEqual(['user', 'result']);
    expect(closing(stopped)).toEqual([ENDED_FROM_OUTSIDE]);
    expect(ENDED_FROM_OUTSIDE).not.toMatch(/30 s/);
    // A turn Codex failed itself.
    const failed = openCall().line('{"type":"turn.failed","error":{"message":"unexpected status 500"}}');
    expect(failed.ok && closing(failed.lines)).toEqual([TURN_FAILED]);
  });

  it('reads unknown events as nothing, and non-JSON as an error', () => {
    const translator = new CodexTranslator({ model: 'm' });
    expect(translator.line('{"type":"turn.plan_updated","plan":[]}')).toEqual({ ok: true, lines: [] });
    expect(
      translator.line('{"type":"item.completed","item":{"id":"i","type":"todo_list","items":[]}}'),
    ).toEqual({
      ok: true,
      lines: [],
    });
    expect(translator.line('Reading additional input from stdin...').ok).toBe(false);
  });

  it('apply_patch calls (file_change items: an add, an update) as tool events the log shows', () => {
    // Codex 0.171 with gpt-6.2-sol, applying two scripted custom_tool_call apply_patch calls.
    const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 1000, costReported: false });
    const events = translate('apply-patch-turn.jsonl', new CodexTranslator({ model: 'gpt-6.2-sol' }))
      .flatMap((l) => mapper.map(l))
      .flatMap((o) => (o.kind === 'event' ? [o.event] : []));
    const root = '/tmp/p18/try-gpt-6.2-sol/root';
    const tools = events.flatMap((e): unknown[][] =>
      e.type === 'assistant.action' && e.data.action === 'tool_use'
        ? [[e.data.toolName, e.data.content]]
        : e.type === 'tool.result'
          ? [[e.data.toolName, e.data.result, e.data.isError]]
          : [],
    );
    expect(tools).toEqual([
      ['file_change', `file_change ${root}/hello.txt`],
      ['file_change', `add ${root}/hello.txt`, false],
      ['file_change', `file_change ${root}/greet.txt`],
      ['file_change', `update ${root}/greet.txt`, false],
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'token.usage', data: { modelId: 'gpt-6.2-sol' } });
  });

  it('through the engine: tool events in order, usage priced as an estimate', () => {
    const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 1000, costReported: false });
    const outputs = translate('tool-turn.jsonl').flatMap((l) => mapper.map(l));
    const events = outputs.flatMap((o) => (o.kind === 'event' ? [o.event] : []));
    expect(
      events.map((e) => (e.type === 'assistant.action' ? `${e.type}:${e.data.action}` : e.type)),
    ).toEqual([
      'assistant.action:thinking',
      'assistant.action:tool_use',
      'tool.result',
      'assistant.action:tool_use',
      'tool.result',
      'assistant.action:message',
      'token.usage',
      'token.usage',
    ]);
    const usage = events.at(-1);
    expect(usage).toMatchObject({ type: 'token.usage', data: { inputTokens: 160, costEstimated: true } });
    // gpt-5.5: $5 / $30 per million, cached input $0.50.
    expect(usage?.type === 'token.usage' && usage.data.totalCost).toBeCloseTo(
      (160 * 5 + 20 * 30 + 40 * 0.5) / 1e6,
      12,
    );
  });
});

describe('statusOf: the HTTP status in a Codex error message', () => {
  it.each([
    ['unexpected status 401 Unauthorized: bad key, url: http://127.0.0.1:1/v1/responses', 401],
    ['exceeded retry limit, last status: 429 Too Many Requests', 429],
    ['rate limit exceeded: Rate limit reached', 429],
    ['We’re currently experiencing high demand, which may cause temporary errors.', 500],
    ['{"error":{"message":"bad","type":"invalid_request_error"}}', 400],
    ['Quota exceeded. Check your plan and billing details.', null],
    ['stream disconnected before completion: idle timeout', null],
  ])('%s -> %s', (message, status) => {
    expect(statusOf(message)).toBe(status);
  });
});

describe('CodexTranslator on an MCP tool call (codex-cli 0.171, code mode)', () => {
  it('names it mcp__<server>__<tool>, its result the text the server answered; the engine sees server and tool', () => {
    const lines = translate('mcp-tool-turn.jsonl', new CodexTranslator({ model: 'gpt-6.2-sol' }));
    const blocks = lines.flatMap((l) =>
      l.type === 'assistant' || l.type === 'user' ? (l.message.content as Array<{ type: string }>) : [],
    );
    const id = '01a22c65-b8bd-7142-a4c8-65e0fed13c82:1:item_0';
    expect(blocks.slice(0, 2)).toEqual([
      { type: 'tool_use', id, name: 'mcp__marker__leave_mark', input: { text: 'hi-codex' } },
      { type: 'tool_result', tool_use_id: id, content: 'MARK-LEFT: hi-codex', is_error: false },
    ]);
    const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 1000, costReported: false });
    const events = lines
      .flatMap((line) => mapper.map(line))
      .flatMap((o) => (o.kind === 'event' ? [o.event] : []));
    const action = events.find((e) => e.type === 'assistant.action' && e.data.action === 'tool_use');
    const result = events.find((e) => e.type === 'tool.result');
    expect(action?.data).toMatchObject({
      toolName: 'mcp__marker__leave_mark',
      mcpServer: 'marker',
      mcpTool: 'leave_mark',
    });
    expect(result?.data).toMatchObject({ mcpServer: 'marker', mcpTool: 'leave_mark', isError: false });
  });
});
