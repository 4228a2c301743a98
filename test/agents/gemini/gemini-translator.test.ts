import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellEndOfSession } from '../../../src/agents/gemini/gemini-session.ts';
import {
  geminiTranslator,
  statusOfError,
  statusOfStderr,
} from '../../../src/agents/gemini/gemini-translator.ts';
import { ENDED_FROM_OUTSIDE, type StreamLine } from '../../../src/agents/stream-line.ts';
import { StreamMapper } from '../../../src/engine/stream-mapper.ts';

/**
 * Gemini CLI 0.61's stream-json, captured from the real CLI (`gemini -p ... --output-format stream-json`)
 * against the scripted provider, read as the stream-json lines the engine maps.
 */

const fixture = (name: string): string[] =>
  readFileSync(join(import.meta.dirname, '../fixtures/gemini', name), 'utf8')
    .trimEnd()
    .split('\n');

function translate(raw: string[], options: { end?: boolean } = {}): StreamLine[] {
  const translator = geminiTranslator();
  const lines = raw.flatMap((text) => {
    const out = translator.line(text);
    if (!out.ok) throw new Error(out.error);
    return out.lines;
  });
  return options.end === false ? lines : [...lines, ...(translator.end?.() ?? [])];
}

const SESSION = '7120bafd-00d9-48c1-a109-0271f87d7672';

describe('Gemini CLI stream-json, translated', () => {
  it('a run with text, tool calls (two in one response) and their results: one message id per model response', () => {
    const lines = translate(fixture('stream.jsonl'));
    const brief = lines.map((line) => {
      if (line.type === 'assistant') {
        return [
          line.message.id,
          line.message.model,
          line.message.content.map((b) => b.type).join('+') || 'usage',
        ];
      }
      if (line.type === 'user' && Array.isArray(line.message.content)) {
        return ['results', ...line.message.content.map((b) => ('tool_use_id' in b ? b.tool_use_id : ''))];
      }
      return [line.type, 'subtype' in line ? line.subtype : ''];
    });
    expect(brief).toEqual([
      ['system', 'init'],
      [`${SESSION}-1`, 'gemini-2.5-flash', 'text'],
      [`${SESSION}-1`, 'gemini-2.5-flash', 'tool_use'],
      ['results', 'run_shell_command__run_shell_command_1795727968929_0'],
      [`${SESSION}-2`, 'gemini-2.5-flash', 'tool_use'],
      [`${SESSION}-2`, 'gemini-2.5-flash', 'tool_use'],
      ['results', 'write_file__write_file_1795727970318_0'],
      ['results', 'run_shell_command__run_shell_command_1795727970377_1'],
      [`${SESSION}-3`, 'gemini-2.5-flash', 'text'],
      [`${SESSION}-3-usage-0`, 'gemini-2.5-flash', 'usage'],
      ['result', 'success'],
    ]);
    expect(lines[0]).toMatchObject({ session_id: SESSION, model: 'gemini-2.5-flash' });
    // Text streamed in pieces is one block.
    expect(lines[8]).toMatchObject({
      message: { content: [{ type: 'text', text: 'Done: hello.txt and notes.md written.' }] },
    });
    expect(lines[4]).toMatchObject({
      message: {
        content: [
          { type: 'tool_use', name: 'write_file', input: { file_path: 'notes.md', content: '# Notes\n' } },
        ],
      },
    });
    expect(lines.at(-1)).toEqual({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'Done: hello.txt and notes.md written.',
      api_error_status: null,
      session_id: SESSION,
      usage: { input_tokens: 35497, output_tokens: 55, cache_read_input_tokens: 0 },
    });
  });

  it('maps to the events a Claude Code run gives, the cost priced from the table and marked estimated', () => {
    const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 100, costReported: false });
    const out = [
      ...translate(fixture('stream.jsonl')).flatMap((line) => mapper.map(line)),
      ...mapper.finish(),
    ];
    const events = out.flatMap((o) => (o.kind === 'event' ? [o.event] : []));
    expect(
      events.map((e) => (e.type === 'assistant.action' ? `${e.type}:${e.data.action}` : e.type)),
    ).toEqual([
      'assistant.action:message',
      'assistant.action:tool_use',
      'tool.result',
      'assistant.action:tool_use',
      'assistant.action:tool_use',
      'tool.result',
      'tool.result',
      'assistant.action:message',
      'token.usage',
      'token.usage',
    ]);
    expect(events.find((e) => e.type === 'tool.result')?.data).toMatchObject({
      toolName: 'run_shell_command',
      isError: false,
    });
    // 35497 in at $0.30 and 55 out at $2.50 per million (gemini-2.5-flash).
    const cost = (35497 * 0.3 + 55 * 2.5) / 1e6;
    expect(events.at(-1)?.data).toMatchObject({
      inputTokens: 35497,
      outputTokens: 55,
      modelId: 'gemini-2.5-flash',
      costEstimated: true,
    });
    expect(mapper.totalCost).toBeCloseTo(cost, 12);
    expect(out.find((o) => o.kind === 'session')).toEqual({ kind: 'session', agentSessionId: SESSION });
  });

  it('a failed tool is an error result with its output', () => {
    const lines = translate(fixture('tool-error.jsonl'));
    expect(lines.find((l) => l.type === 'user')).toMatchObject({
      message: {
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'read_file__read_file_1795728003884_0',
            content: 'File not found.',
            is_error: true,
          },
        ],
      },
    });
  });

  it('a shell command that exits non-zero is a failed result, its exit code from the session file (issue 30 M2)', () => {
    // Gemini CLI's stream says "success" for `exit 3`; only the session file has the exit code.
    const session = fixture('session-shell-exit.jsonl').join('\n');
    const translator = geminiTranslator({
      readShellEnd: (_id, toolId) => shellEndOfSession(session, toolId),
    });
    const lines = fixture('shell-exit.jsonl').flatMap((raw) => {
      const out = translator.line(raw);
      if (!out.ok) throw new Error(out.error);
      return out.lines;
    });
    const results = lines.filter((l) => l.type === 'user');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({
      message: {
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'run_shell_command__run_shell_command_1795980343030_0',
            content: 'Exit code 3\nout\nerr',
            is_error: true,
          },
        ],
      },
    });
    // Held until the model's next move, it still comes before that move's text.
    const order = lines.map((l) => l.type);
    expect(order.indexOf('user')).toBeLessThan(
      lines.findIndex((l) => l.type === 'assistant' && JSON.stringify(l).includes('Done.')),
    );
  });

  it('a shell result the session has no exit code for stays as the stream said; a run cut short still gets it', () => {
    const raw = fixture('shell-exit.jsonl');
    const translator = geminiTranslator({ readShellEnd: () => undefined });
    const lines = raw.slice(0, 4).flatMap((text) => {
      const out = translator.line(text);
      return out.ok ? out.lines : [];
    });
    // The stream ended right after the result (a stop): end() gives the held result, as the stream said.
    const ended = [...lines, ...(translator.end?.() ?? [])];
    expect(ended.filter((l) => l.type === 'user')).toMatchObject([
      { message: { content: [{ type: 'tool_result', content: 'out\nerr', is_error: false }] } },
    ]);
  });

  it("a 429 is a rate-limited result: status 429, the provider's suggested delay kept in the message", () => {
    const lines = translate(fixture('rate-limit.jsonl'));
    const result = lines.at(-1);
    expect(result).toMatchObject({ type: 'result', is_error: true, api_error_status: 429 });
    expect(result?.type === 'result' && result.result).toMatch(
      /^\[API Error: Scripted 429 RESOURCE_EXHAUSTED/,
    );
    // No usage line: nothing was answered.
    expect(lines.filter((l) => l.type === 'assistant')).toEqual([]);
    const mapped = new StreamMapper({ codonId: 'c', maxResultChars: 100, costReported: false }).map(result!);
    expect(mapped.find((o) => o.kind === 'result')).toMatchObject({
      apiErrorStatus: 429,
      retryAfterMs: 7000,
    });
  });

  it('a result without an error of its own takes the error event before it (a stream that ended short)', () => {
    expect(translate(fixture('stream-ended.jsonl')).at(-1)).toMatchObject({
      type: 'result',
      is_error: true,
      result: 'Model stream ended without a finish reason.',
      // An error inside the stream: an api-error worth retrying (a 502), not an unknown failure.
      api_error_status: 502,
    });
  });

  it('output that stops without a result ends with a failed one, the text so far kept', () => {
    const lines = translate(fixture('stream.jsonl').slice(0, 3));
    expect(lines.map((l) => l.type)).toEqual(['system', 'assistant', 'result']);
    expect(lines[1]).toMatchObject({ message: { content: [{ text: 'I will write the file.' }] } });
    expect(lines[2]).toMatchObject({
      is_error: true,
      result: 'Gemini CLI exited without reporting a result',
      session_id: SESSION,
    });
    // After a result, the end adds nothing.
    expect(translate(fixture('stream.jsonl')).filter((l) => l.type === 'result')).toHaveLength(1);
  });

  it('a call cut short (a halt, timeout or stop: no result) gets a tool.result closing it (retrial 18 L2)', () => {
    // Up to the second response's two calls, one answered (write_file), one not (the shell command).
    const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 1000, costReported: false });
    const events = translate(fixture('stream.jsonl').slice(0, 8))
      .flatMap((l) => mapper.map(l))
      .flatMap((o) => (o.kind === 'event' ? [o.event] : []));
    const results = events.flatMap((e) =>
      e.type === 'tool.result' ? [[e.data.toolUseId, e.data.result, e.data.isError]] : [],
    );
    expect(results).toEqual([
      ['run_shell_command__run_shell_command_1795727968929_0', '', false],
      ['write_file__write_file_1795727970318_0', '', false],
      ['run_shell_command__run_shell_command_1795727970377_1', ENDED_FROM_OUTSIDE, true],
    ]);
    // A run that ended with its result leaves no call to close.
    const whole = translate(fixture('stream.jsonl'));
    expect(whole.filter((l) => l.type === 'user')).toHaveLength(3);
  });

  it('a line that is not one of its events is reported, not thrown', () => {
    const translator = geminiTranslator();
    expect(translator.line('Loaded cached credentials.')).toMatchObject({ ok: false, error: 'not JSON' });
    expect(translator.line('{"type":"surprise"}')).toMatchObject({ ok: false });
  });
});

describe('statusOfError', () => {
  it.each([
    // Its rate-limit advice follows a 429's text.
    [
      '[API Error: Resource has been exhausted]\nPlease wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method',
      429,
    ],
    ['[API Error: {"error":{"code":500,"message":"Scripted 500 INTERNAL","status":"INTERNAL"}}]', 500],
    [
      '[API Error: {"error":{"code":400,"message":"Scripted 400 INVALID_ARGUMENT","status":"INVALID_ARGUMENT"}}]',
      400,
    ],
    ['[API Error: Scripted 503 UNAVAILABLE]', null],
    ['Model stream ended without a finish reason.', 502],
    ['[API Error: models/gemini-nope is not found for API version v1beta]', 404],
  ])('%s -> %s', (message, status) => {
    expect(statusOfError(message)).toBe(status);
  });
});

describe('a model the provider does not have (trial 18 L2)', () => {
  const raw = (name: string) => readFileSync(join(import.meta.dirname, '../fixtures/gemini', name), 'utf8');

  it("Google's 404 text gives the status its result lacks: an api-error, as for codex and opencode", () => {
    // model-not-found.*: gemini-nope against the scripted provider's 404 (Google's words); exit code 1.
    const lines = translate(fixture('model-not-found.jsonl'));
    expect(lines.at(-1)).toMatchObject({
      type: 'result',
      is_error: true,
      result: '[API Error: models/gemini-nope is not found for API version v1beta]',
      api_error_status: 404,
    });
  });

  it('its stderr names every 404 a ModelNotFoundError, whatever the text', () => {
    expect(statusOfStderr(raw('model-not-found.stderr'))).toBe(404);
    expect(statusOfStderr(raw('no-auth.stderr'))).toBeNull();
  });
});

describe("Gemini CLI's MCP tool call (mcp-tool.jsonl: a call of the marker server's leave_mark)", () => {
  const engineEvents = (servers: readonly string[]) => {
    const translator = geminiTranslator({ mcpServers: servers });
    const lines = fixture('mcp-tool.jsonl').flatMap((text) => {
      const out = translator.line(text);
      if (!out.ok) throw new Error(out.error);
      return out.lines;
    });
    const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 1000, costReported: false });
    return lines.flatMap((line) => mapper.map(line)).flatMap((o) => (o.kind === 'event' ? [o.event] : []));
  };

  it("is named mcp__<server>__<tool> by the codon's servers: the engine sees its server and tool", () => {
    const events = engineEvents(['marker']);
    const action = events.find((e) => e.type === 'assistant.action' && e.data.action === 'tool_use');
    expect(action?.data).toMatchObject({
      toolName: 'mcp__marker__leave_mark',
      mcpServer: 'marker',
      mcpTool: 'leave_mark',
      toolInput: { text: 'hi-gemini' },
    });
    const result = events.find((e) => e.type === 'tool.result');
    expect(result?.data).toMatchObject({ mcpServer: 'marker', mcpTool: 'leave_mark', isError: false });
  });

  it('keeps its own name for a codon that has no such server', () => {
    const action = engineEvents([]).find(
      (e) => e.type === 'assistant.action' && e.data.action === 'tool_use',
    );
    expect(action?.data).toMatchObject({ toolName: 'mcp_marker_leave_mark' });
    expect(action?.data).not.toHaveProperty('mcpServer');
  });
});
