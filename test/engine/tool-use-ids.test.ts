/**
 * Every agent's tool call carries the id its result carries (issue 30 M1): the real CLIs' captured
 * output (test/agents/fixtures), through each agent's translator and the engine's StreamMapper, gives
 * each `tool.result` a `tool_use` action with the same `toolUseId` and tool before it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodexTranslator } from '../../src/agents/codex/codex-translator.ts';
import { geminiTranslator } from '../../src/agents/gemini/gemini-translator.ts';
import { opencodeTranslator } from '../../src/agents/opencode/opencode-translator.ts';
import type { Translator } from '../../src/agents/spawn-agent.ts';
import { StreamLine } from '../../src/agents/stream-line.ts';
import { StreamMapper } from '../../src/engine/stream-mapper.ts';

const FIXTURES = join(import.meta.dirname, '../agents/fixtures');
const raw = (name: string) =>
  readFileSync(join(FIXTURES, name), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');

/** The CLI's lines as StreamLines: through its translator, or read as Claude Code's own stream-json. */
function streamLines(name: string, translator?: Translator): StreamLine[] {
  if (!translator) return raw(name).map((line) => StreamLine.parse(JSON.parse(line)));
  const lines = raw(name).flatMap((line) => {
    const out = translator.line(line);
    return out.ok ? out.lines : [];
  });
  return [...lines, ...(translator.end?.() ?? [])];
}

/** The tool calls and results the engine journals, in order: `call Bash toolu_1`, `result Bash toolu_1`. */
function toolEvents(lines: StreamLine[]): string[] {
  const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 1_000 });
  return lines.flatMap((line) =>
    mapper.map(line).flatMap((out) => {
      if (out.kind !== 'event') return [];
      const e = out.event;
      if (e.type === 'assistant.action' && e.data.action === 'tool_use')
        return [`call ${e.data.toolName} ${e.data.toolUseId}`];
      if (e.type === 'tool.result') return [`result ${e.data.toolName} ${e.data.toolUseId}`];
      return [];
    }),
  );
}

const CASES: Array<[string, string, () => Translator | undefined]> = [
  ['claude-code', 'claude-stream.jsonl', () => undefined],
  ['codex', 'codex/tool-turn.jsonl', () => new CodexTranslator({ model: 'gpt-5.5' })],
  ['codex (apply_patch)', 'codex/apply-patch-turn.jsonl', () => new CodexTranslator({ model: 'gpt-5.5' })],
  [
    'codex (a yielded command)',
    'codex/yielded-command.jsonl',
    () => new CodexTranslator({ model: 'gpt-5.5' }),
  ],
  ['gemini', 'gemini/stream.jsonl', () => geminiTranslator()],
  ['gemini (a failed tool)', 'gemini/tool-error.jsonl', () => geminiTranslator()],
  ['opencode', 'opencode/tools.jsonl', () => opencodeTranslator({ model: 'anthropic/claude-sonnet-4-5' })],
  [
    'opencode (a call shown as it starts)',
    'opencode/tool-start.jsonl',
    () => opencodeTranslator({ model: 'anthropic/claude-sonnet-4-5' }),
  ],
];

describe('tool calls carry the id of their results, for every agent (issue 30 M1)', () => {
  for (const [agent, fixture, translator] of CASES)
    it(`${agent}: ${fixture}`, () => {
      const events = toolEvents(streamLines(fixture, translator()));
      const results = events.filter((e) => e.startsWith('result '));
      expect(results.length, events.join('\n')).toBeGreaterThan(0);
      for (const result of results) {
        const call = result.replace(/^result /, 'call ');
        expect(call, events.join('\n')).not.toMatch(/undefined$/);
        // Its call came before it, with the same tool and id.
        expect(events.slice(0, events.indexOf(result)), result).toContain(call);
      }
    });
});
