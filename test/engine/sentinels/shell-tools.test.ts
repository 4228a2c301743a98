/**
 * Trial 18 L8: a sentinel on shell commands fires for every agent. Each agent names its shell tool
 * its own way (docs/sentinels.md); the shipped example (examples/plans/sentinels.yaml) lists them all.
 * The tool calls here are each CLI's own, from its captured output (test/agents/fixtures), as the
 * engine publishes them (translator, then the stream mapper).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodexTranslator } from '../../../src/agents/codex/codex-translator.ts';
import { geminiTranslator } from '../../../src/agents/gemini/gemini-translator.ts';
import { opencodeTranslator } from '../../../src/agents/opencode/opencode-translator.ts';
import type { Translator } from '../../../src/agents/spawn-agent.ts';
import { compileStep, type EventLike } from '../../../src/engine/sentinels/trigger-match.ts';
import { StreamMapper } from '../../../src/engine/stream-mapper.ts';
import { loadPlan } from '../../../src/plan/index.ts';

const ROOT = join(import.meta.dirname, '../../..');

/** The tool calls (assistant.action tool_use) the engine publishes for a CLI's captured output. */
function toolCalls(translator: Translator, fixture: string): EventLike[] {
  const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 1_000 });
  const text = readFileSync(join(ROOT, 'test/agents/fixtures', fixture), 'utf8');
  const out = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      const read = translator.line(line);
      if (!read.ok) throw new Error(read.error);
      return read.lines.flatMap((l) => mapper.map(l));
    });
  return out.flatMap((o) =>
    o.kind === 'event' && o.event.type === 'assistant.action' && o.event.data.action === 'tool_use'
      ? [{ type: o.event.type, data: o.event.data }]
      : [],
  );
}

/** Each agent CLI's shell call and one of its file calls, as captured. */
const AGENTS = {
  codex: () => toolCalls(new CodexTranslator({ model: 'gpt-5.5' }), 'codex/tool-turn.jsonl'),
  gemini: () => toolCalls(geminiTranslator(), 'gemini/stream.jsonl'),
  opencode: () => toolCalls(opencodeTranslator({ model: 'm' }), 'opencode/tools.jsonl'),
};

const SHELL_TOOL = { codex: 'command_execution', gemini: 'run_shell_command', opencode: 'bash' } as const;

async function exampleTrigger() {
  const loaded = await loadPlan(join(ROOT, 'examples/plans/sentinels.yaml'));
  if (!loaded.ok) throw new Error('the example plan does not load');
  const ref = loaded.plan.codons[0]?.sentinels?.find((s) => s.ref === 'no-destructive-commands');
  const trigger = ref && 'sentinel' in ref ? ref.sentinel?.trigger : undefined;
  if (trigger?.type !== 'event') throw new Error('no event trigger');
  return compileStep(trigger.eventTypes, trigger.conditions);
}

const withCommand = (call: EventLike, command: string): EventLike => {
  const data = call.data as { toolInput?: Record<string, unknown> };
  return { ...call, data: { ...data, toolInput: { ...data.toolInput, command } } };
};

describe("the example's shell-command sentinel, for each agent's shell tool (trial 18 L8)", () => {
  it.each(Object.keys(AGENTS) as Array<keyof typeof AGENTS>)(
    '%s: its shell tool, its command in toolInput.command, fires on rm; its file tools do not',
    async (agent) => {
      const matches = await exampleTrigger();
      const calls = AGENTS[agent]();
      const shell = calls.filter((c) => (c.data as { toolName: string }).toolName === SHELL_TOOL[agent]);
      expect(shell.length).toBeGreaterThan(0);
      for (const call of shell) {
        expect(typeof (call.data as { toolInput: { command?: unknown } }).toolInput.command).toBe('string');
        expect(matches(withCommand(call, 'rm -rf ../elsewhere'))).toBe(true);
        expect(matches(withCommand(call, 'ls -la'))).toBe(false);
      }
      const others = calls.filter((c) => !shell.includes(c));
      expect(others.length).toBeGreaterThan(0);
      for (const call of others) expect(matches(withCommand(call, 'rm -rf ../elsewhere'))).toBe(false);
    },
  );

  it("Claude Code's and the built-in agent's Bash", async () => {
    const matches = await exampleTrigger();
    const bash = {
      type: 'assistant.action',
      data: { toolName: 'Bash', toolInput: { command: 'rm -rf /x' } },
    };
    expect(matches(bash)).toBe(true);
  });
});
