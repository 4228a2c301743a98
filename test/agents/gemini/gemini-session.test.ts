import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellEndOfSession, spendOfSession, spentSince } from '../../../src/agents/gemini/gemini-session.ts';
import { geminiTranslator } from '../../../src/agents/gemini/gemini-translator.ts';
import type { StreamLine } from '../../../src/agents/stream-line.ts';
import { StreamMapper } from '../../../src/engine/stream-mapper.ts';
import { costOf } from '../../../src/llm/pricing.ts';

/**
 * Session files of the real Gemini CLI 0.61 against the scripted provider: a three-response run
 * (`session-parent`), the run that continued it (`session-forked`, `--session-file`: a new session
 * starting with copies of its parent's messages), and a run stopped in its shell tool after one
 * response (1000 input and 100 output tokens, as the script said).
 */
const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../fixtures/gemini', name), 'utf8');

describe("Gemini CLI's session file: what a run spent (trial 18 M3)", () => {
  it("adds up each response once, as the run's stream-json stats did", () => {
    // The run's result stats (journaled): 35563 input and 30 output tokens.
    expect(spendOfSession(fixture('session-parent.jsonl'))).toEqual({
      'gemini-2.5-flash': { input_tokens: 35563, output_tokens: 30, cached: 0, total_tokens: 35593 },
    });
  });

  it("a forked session's own spend is what it records beyond its parent's", () => {
    const parent = spendOfSession(fixture('session-parent.jsonl'));
    const forked = spendOfSession(fixture('session-forked.jsonl'));
    // The continuing run's stats: 24291 input and 28 output tokens.
    expect(spentSince(forked, parent)).toEqual({
      'gemini-2.5-flash': { input_tokens: 24291, output_tokens: 28, cached: 0, total_tokens: 24319 },
    });
  });

  it('a run stopped in its tool call reports the response that asked for it, priced', () => {
    const translator = geminiTranslator({
      readSpent: (id) => {
        expect(id).toBe('1d75a3d3-e378-4f4f-a74d-fce36054747a');
        return spendOfSession(fixture('session-stopped.jsonl'));
      },
    });
    // The stopped run's output: its init, its text and the shell command it was running; then SIGTERM.
    const raw = [
      '{"type":"init","timestamp":"2026-11-27T00:20:43.971Z","session_id":"1d75a3d3-e378-4f4f-a74d-fce36054747a","model":"gemini-2.5-flash"}',
      '{"type":"message","timestamp":"2026-11-27T00:20:44.180Z","role":"assistant","content":"Sleeping.","delta":true}',
      '{"type":"tool_use","timestamp":"2026-11-27T00:20:44.190Z","tool_name":"run_shell_command","tool_id":"run_shell_command_1","parameters":{"command":"sleep 300"}}',
    ];
    const lines: StreamLine[] = raw.flatMap((text) => {
      const out = translator.line(text);
      return out.ok ? out.lines : [];
    });
    lines.push(...(translator.end?.() ?? []));
    const usage = { input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 0 };
    expect(lines.at(-2)).toMatchObject({
      type: 'assistant',
      message: { model: 'gemini-2.5-flash', content: [], usage },
    });
    expect(lines.at(-1)).toMatchObject({ type: 'result', is_error: true, usage });
    const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 100, costReported: false });
    for (const line of lines) mapper.map(line);
    expect(mapper.totalCost).toBeCloseTo(costOf('gemini-2.5-flash', usage).usd, 12);
    expect(mapper.totalCost).toBeGreaterThan(0);
  });

  it('a run that ends without a result and spent nothing new reports no usage', () => {
    const spent = spendOfSession(fixture('session-stopped.jsonl'));
    const translator = geminiTranslator({ before: spent, readSpent: () => spent });
    translator.line(
      '{"type":"init","session_id":"1d75a3d3-e378-4f4f-a74d-fce36054747a","model":"gemini-2.5-flash"}',
    );
    const lines = translator.end?.() ?? [];
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ type: 'result', is_error: true });
    expect(lines[0]).not.toHaveProperty('usage');
  });
});

describe("Gemini CLI's session file: how a shell command ended (issue 30 M2)", () => {
  const session = fixture('session-shell-exit.jsonl');
  const id = 'run_shell_command__run_shell_command_1795980343030_0';

  it('reads the exit code the model was told, which the stream-json leaves out', () => {
    expect(shellEndOfSession(session, id)).toEqual({ exitCode: 3, signal: null });
  });

  it('a call it has no response for, or a file torn mid-line, gives nothing rather than a guess', () => {
    expect(shellEndOfSession(session, 'run_shell_command__other_0')).toBeUndefined();
    const torn = session.slice(0, session.indexOf('Exit Code'));
    expect(shellEndOfSession(torn, id)).toBeUndefined();
  });

  it('a command that exited 0 or was killed by a signal is read as such', () => {
    const ok = session.replaceAll('Exit Code: 3', 'Exit Code: 0');
    expect(shellEndOfSession(ok, id)).toEqual({ exitCode: 0, signal: null });
    const killed = session.replaceAll('Exit Code: 3', 'Signal: 9');
    expect(shellEndOfSession(killed, id)).toEqual({ exitCode: null, signal: '9' });
  });
});
