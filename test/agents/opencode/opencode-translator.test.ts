/**
 * opencode's `run --format json` output, captured from opencode 1.18.33 against the scripted provider
 * (test/agents/fixtures/opencode/), read by the translator and then by the engine's StreamMapper: the
 * events a client sees. tools.jsonl: reasoning, text, a write, a bash command, an edit that failed
 * (missing file) and a write the config denied (the data directory), then the final answer.
 * tool-start.jsonl: the same with Ribosome's tool-start plugin (TOOL_START_PLUGIN) loaded: a bash
 * command (2 s), an edit that failed, a call of a tool that does not exist (opencode's `invalid`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { opencodeTranslator } from '../../../src/agents/opencode/opencode-translator.ts';
import type { StreamLine } from '../../../src/agents/stream-line.ts';
import { trackTools } from '../../../src/engine/retries/stall-watch.ts';
import { type MappedOutput, StreamMapper } from '../../../src/engine/stream-mapper.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures/opencode');
const fixture = (name: string) =>
  readFileSync(join(FIXTURES, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');

function translate(lines: readonly string[], model = 'claude-sonnet-4-5'): StreamLine[] {
  const translator = opencodeTranslator({ model, now: () => Date.parse('2026-11-26T21:30:52Z') });
  const out: StreamLine[] = [];
  for (const line of lines) {
    const parsed = translator.line(line);
    if (!parsed.ok) throw new Error(`${parsed.error}: ${line}`);
    out.push(...parsed.lines);
  }
  out.push(...(translator.end?.() ?? []));
  return out;
}

function mapped(lines: readonly StreamLine[]): MappedOutput[] {
  const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 10_000, now: () => 0 });
  return [...lines.flatMap((l) => mapper.map(l)), ...mapper.finish()];
}

const events = (outputs: readonly MappedOutput[]) =>
  outputs.flatMap((o) => (o.kind === 'event' ? [o.event] : []));

describe('opencode translator: captured runs', () => {
  it('a run with tools: session, reasoning, text, calls with their results (errors marked), usage per step, a success result', () => {
    const lines = translate(fixture('tools.jsonl'));
    const session = 'ses_de63c35b2ffee80ZR1RJAgF94p';
    expect(lines[0]).toEqual({
      type: 'system',
      subtype: 'init',
      session_id: session,
      model: 'claude-sonnet-4-5',
    });
    const out = mapped(lines);
    const seen = events(out).map((e) =>
      e.type === 'assistant.action'
        ? `${e.data.action}:${e.data.content}`
        : e.type === 'tool.result'
          ? `result:${e.data.toolName}:${e.data.isError}:${e.data.result.slice(0, 30)}`
          : e.type,
    );
    expect(seen).toEqual([
      'thinking:I should write the file first.',
      'message:Writing hello.txt.',
      'tool_use:write hello.txt',
      'result:write:false:Wrote file successfully.',
      'token.usage',
      'tool_use:bash cat hello.txt; ls',
      'result:bash:false:hi\nhello.txt\nribosome-data\n',
      'token.usage',
      'tool_use:edit missing.txt',
      'result:edit:true:File /tmp/oc18x/cap/root/missi',
      'token.usage',
      'tool_use:write ribosome-data/x.txt',
      'result:write:true:The user has specified a rule ',
      'token.usage',
      'message:Wrote hello.txt.',
      'token.usage',
      'token.usage',
    ]);
    const toolUse = events(out).find((e) => e.type === 'assistant.action' && e.data.action === 'tool_use');
    expect(toolUse?.type === 'assistant.action' && toolUse.data).toMatchObject({
      toolName: 'write',
      toolInput: { filePath: 'hello.txt', content: 'hi\n' },
    });
    // The first step's usage as the script set it: cache apart from input, as Anthropic counts.
    const first = events(out).find((e) => e.type === 'token.usage');
    expect(first?.type === 'token.usage' && first.data).toMatchObject({
      inputTokens: 1200,
      outputTokens: 40,
      cacheReadTokens: 300,
      cacheCreationTokens: 100,
      modelId: 'claude-sonnet-4-5',
    });
    const result = out.find((o) => o.kind === 'result');
    expect(result).toEqual({
      kind: 'result',
      isError: false,
      apiErrorStatus: null,
      message: 'Wrote hello.txt.',
      // opencode's own cost, each step's at list price, summed.
      finalCost: 0.004665 + 0.023502 + 0.023724 + 0.023955 + 0.02481,
    });
    // The result's totals are the steps' sums, and its cost opencode's.
    const last = events(out).at(-1);
    expect(last?.type === 'token.usage' && last.data).toMatchObject({
      inputTokens: 1200 + 7749 + 7828 + 7915 + 8250,
      outputTokens: 40 + 17 + 16 + 14 + 4,
      totalCost: expect.closeTo(0.100656, 6),
    });
    expect(lines.at(-1)).toMatchObject({ type: 'result', session_id: session, subtype: 'success' });
  });

  it('a follow-up turn by resume reports the same session', () => {
    const lines = translate(fixture('resume.jsonl'));
    expect(lines[0]).toMatchObject({ type: 'system', session_id: 'ses_de63c35b2ffee80ZR1RJAgF94p' });
    expect(lines.at(-1)).toMatchObject({
      type: 'result',
      is_error: false,
      result: 'Heard you: FOLLOW-UP done.',
      session_id: 'ses_de63c35b2ffee80ZR1RJAgF94p',
      total_cost_usd: 0.024969,
    });
  });

  it('a 429 opencode gave up on: an error result with the status and the retry-after, so the engine says rate-limit', () => {
    const lines = translate(fixture('rate-limit.jsonl'));
    expect(lines.map((l) => l.type)).toEqual(['system', 'result']);
    expect(lines.at(-1)).toMatchObject({
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      result: 'Scripted 429 rate_limit_error',
      api_error_status: 429,
      retry_after_ms: 1000,
      total_cost_usd: 0,
    });
    expect(mapped(lines).find((o) => o.kind === 'result')).toMatchObject({
      isError: true,
      apiErrorStatus: 429,
      retryAfterMs: 1000,
    });
  });

  it('a model the provider does not have: the result says it is not found, with status 404 (retrial 18 L9)', () => {
    // Captured from opencode 1.18.33 against the scripted provider answering 404 `model: claude-nope`.
    const lines = translate(fixture('model-not-found.jsonl'), 'claude-nope');
    expect(lines.at(-1)).toMatchObject({
      type: 'result',
      is_error: true,
      api_error_status: 404,
      result: 'model claude-nope is not found at the provider (404: model: claude-nope)',
    });
  });

  it('an API error after a tool step: the step is reported, then an error result with its status', () => {
    const lines = translate(fixture('api-error.jsonl'));
    expect(lines.filter((l) => l.type === 'user')).toHaveLength(1);
    expect(lines.at(-1)).toMatchObject({
      is_error: true,
      result: 'invalid tool schema',
      api_error_status: 400,
      usage: { input_tokens: 7600, output_tokens: 13 },
      total_cost_usd: 0.022995,
    });
    expect(lines.at(-1)).not.toHaveProperty('retry_after_ms');
  });

  it('an error opencode recovered from (context overflow, then compaction) still fails the turn: it exits 1', () => {
    const lines = translate(fixture('context-overflow.jsonl'));
    expect(lines.at(-1)).toMatchObject({
      is_error: true,
      result: 'prompt is too long',
      api_error_status: null,
    });
  });

  it('output cut short (the process was stopped mid-turn): a failed result saying so', () => {
    const cut = fixture('tools.jsonl').slice(0, 5);
    expect(JSON.parse(cut.at(-1) ?? '{}')).toMatchObject({
      type: 'step_finish',
      part: { reason: 'tool-calls' },
    });
    expect(translate(cut).at(-1)).toMatchObject({
      type: 'result',
      is_error: true,
      result: 'opencode ended without finishing its turn',
      api_error_status: null,
      usage: { input_tokens: 1200, output_tokens: 40 },
    });
    expect(translate([]).at(-1)).toMatchObject({ type: 'result', is_error: true });
  });

  it('with the tool-start plugin: each call goes out as it starts, open until its result comes (trial 18 M2)', () => {
    const raw = fixture('tool-start.jsonl');
    const translator = opencodeTranslator({ model: 'claude-sonnet-4-5' });
    const open = new Set<string>();
    /** For each opencode line: its own type, and the calls open (for stall detection) once it is read. */
    const seen = raw.map((line) => {
      const parsed = translator.line(line);
      if (!parsed.ok) throw new Error(parsed.error);
      for (const l of parsed.lines) trackTools(open, l);
      return `${(JSON.parse(line) as { type: string }).type}:${open.size}`;
    });
    // The bash command is open from the plugin's line (before opencode's events of that response)
    // until opencode's tool_use, which carries its result.
    expect(seen.slice(0, 4)).toEqual(['ribosome.tool_start:1', 'step_start:1', 'text:1', 'tool_use:0']);
    expect(seen.filter((s) => s.endsWith(':1'))).toHaveLength(3 + 2 + 2);

    const out = events(mapped(translate(raw)));
    const shown = out.map((e) =>
      e.type === 'assistant.action'
        ? `${e.data.action}:${e.data.content}`
        : e.type === 'tool.result'
          ? `result:${e.data.toolName}:${e.data.isError}`
          : e.type,
    );
    // One tool_use per call (not again with its result), each before its result. The unknown tool's
    // call is named as the model asked for it, and failed (opencode's `invalid` stand-in "completes").
    expect(shown.filter((s) => s !== 'token.usage')).toEqual([
      'tool_use:bash sleep 2; echo slept',
      'message:Running a command.',
      'result:bash:false',
      'tool_use:edit missing.txt',
      'result:edit:true',
      'tool_use:nosuchtool ',
      'result:nosuchtool:true',
      'message:Done.',
    ]);
  });

  it('reports a shell command that exited non-zero as failed, as the other agents do', () => {
    const line = (callID: string, exit: number) =>
      JSON.stringify({
        type: 'tool_use',
        sessionID: 'ses_1',
        part: {
          type: 'tool',
          tool: 'bash',
          callID,
          messageID: 'msg_1',
          state: {
            status: 'completed',
            input: { command: `exit ${exit}` },
            output: '',
            metadata: { output: '', exit, truncated: false },
          },
        },
      });
    const out = events(mapped(translate([line('call_ok', 0), line('call_bad', 7)])));
    const results = out.flatMap((e) =>
      e.type === 'tool.result' ? [`${e.data.toolUseId}:${e.data.isError}`] : [],
    );
    expect(results).toEqual(['call_ok:false', 'call_bad:true']);
  });

  it("ignores a subagent's tool starts, and closes a call still open when opencode ends", () => {
    const [start = ''] = fixture('tool-start.jsonl');
    const sub = JSON.stringify({ ...JSON.parse(start), sessionID: 'ses_sub', callID: 'call_sub' });
    const lines = translate([start, sub]);
    expect(lines.filter((l) => l.type === 'assistant')).toHaveLength(1);
    expect(lines.slice(-2)).toMatchObject([
      {
        type: 'user',
        message: {
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_01EDozoYTWH4QB6s6LXHu5yw',
              content: 'opencode ended before this tool call did; its result was not seen',
              is_error: true,
            },
          ],
        },
      },
      { type: 'result', is_error: true, result: 'opencode ended without finishing its turn' },
    ]);
  });

  it('skips event types of a newer opencode, and reports lines that are not its JSON', () => {
    const translator = opencodeTranslator({ model: 'm' });
    expect(translator.line('{"type":"snapshot","sessionID":"s","part":{}}')).toEqual({ ok: true, lines: [] });
    expect(translator.line('! permission requested: edit (x); auto-rejecting')).toEqual({
      ok: false,
      error: 'not JSON',
    });
    expect(translator.line('{"type":"text","sessionID":"s"}')).toMatchObject({ ok: false });
  });
});

describe("opencode's MCP tool call (mcp-tool.jsonl: the marker server's leave_mark, announced by the plugin)", () => {
  it("is named mcp__<server>__<tool> by the codon's servers, as it starts and as it ends", () => {
    const translator = opencodeTranslator({ model: 'claude-sonnet-4-5', mcpServers: ['marker'] });
    const lines = fixture('mcp-tool.jsonl').flatMap((line) => {
      const parsed = translator.line(line);
      if (!parsed.ok) throw new Error(parsed.error);
      return parsed.lines;
    });
    const all = [...lines, ...(translator.end?.() ?? [])];
    const seen = events(mapped(all));
    const action = seen.find((e) => e.type === 'assistant.action' && e.data.action === 'tool_use');
    expect(action?.data).toMatchObject({
      toolName: 'mcp__marker__leave_mark',
      mcpServer: 'marker',
      mcpTool: 'leave_mark',
      toolInput: { text: 'hi-opencode' },
    });
    const result = seen.find((e) => e.type === 'tool.result');
    expect(result?.data).toMatchObject({ mcpServer: 'marker', mcpTool: 'leave_mark', isError: false });
    expect(seen.filter((e) => e.type === 'assistant.action' && e.data.action === 'tool_use')).toHaveLength(1);
  });
});
