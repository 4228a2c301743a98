/**
 * Record and replay with each agent CLI (docs/testing-plans.md): the mixed-agents plan (one codon
 * per agent: the built-in agent, Claude Code, Codex, Gemini CLI, opencode; the narrator sentinel on
 * the first and the last) recorded once against the scripted provider with a key planted, then
 * replayed with no provider at all: the same codons, tool calls, checkpoint trees, costs and sentinel
 * outputs. Then, for each agent, its codon's prompt changed: the replay fails that codon with a miss
 * naming the first difference, and with --on-miss live the provider fills the gap.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { AGENT_CLIS } from '../../../src/agents/registry/agent-clis.ts';
import { readCassette } from '../../../src/llm/cassette/read.ts';
import { describeWithClis } from '../../helpers/agent-clis.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { cliToEnd, journalRows, ROOT, tempDir } from '../../helpers/server-process.ts';

const { temps } = e2eResources();

const PLAN = join(ROOT, 'examples/demo/mixed-agents.yaml');
const SCRIPT = join(ROOT, 'examples/scripts/mixed-agents.yaml');
const KEY = 'sk-ant-planted-9d8c7b6a5f4e3d2c';

/** The plan's codons, each with its agent and the start of its prompt (what the script matches on). */
const CODONS = [
  { id: 'start', agent: 'builtin', prompt: 'Start a small shell project' },
  { id: 'farewell', agent: 'claude-code', prompt: 'Read greet.sh, make it also say goodbye' },
  { id: 'test', agent: 'codex', prompt: 'Write test.sh, a test of what greet.sh prints' },
  { id: 'document', agent: 'gemini', prompt: 'Write README.md explaining greet.sh and test.sh' },
  { id: 'wrap-up', agent: 'opencode', prompt: 'Write CHANGELOG.md from what RELAY.md says' },
] as const;

function temp(): string {
  const t = tempDir();
  temps.push(t);
  return t.path;
}

/** `ribosome ARGS` to its end (killed after 300_000 ms). */
const cli = (args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 300_000) =>
  cliToEnd(args, env, timeoutMs);

/** `ribosome replay FROM` headless to its end, in the execution INTO, with more flags. */
const replayInto = (from: string, into: string, ...flags: string[]) =>
  cli(['replay', from, '--headless', '--exit-when-done', ...flags, '--execution', into]);

/** One recording for the file. */
let recording: Promise<string> | undefined;
function recorded(): Promise<string> {
  recording ??= (async () => {
    const exec = join(temp(), 'recorded');
    const run = await cli(
      [
        'run',
        PLAN,
        '--record',
        '--headless',
        '--exit-when-done',
        '--scripted-provider',
        SCRIPT,
        '--execution',
        exec,
      ],
      { ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: KEY, GEMINI_API_KEY: KEY },
    );
    expect(run.code, run.stderr).toBe(0);
    return exec;
  })();
  return recording;
}

const toolResults = (exec: string) =>
  journalRows(exec)
    .filter((e) => e.type === 'tool.result')
    .map((e) => [e.data.codonId, e.data.toolName, e.data.isError]);

/** Each sentinel's outputs on each codon, in order (two sentinels' outputs may interleave otherwise). */
const sentinelOutputs = (exec: string) => {
  const out: Record<string, unknown[]> = {};
  for (const e of journalRows(exec).filter((r) => r.type === 'sentinel.output')) {
    const key = `${e.data.sentinelId} on ${e.data.codonId}`;
    out[key] = [...(out[key] ?? []), e.data.content];
  }
  return out;
};

/** The mixed-agents plan with one codon's prompt changed (the script still answers it: it keeps the start). */
function changedPlan(codonId: string): string {
  const codon = CODONS.find((c) => c.id === codonId);
  const text = readFileSync(PLAN, 'utf8')
    .replace('../sentinels/', `${join(ROOT, 'examples/sentinels')}/`)
    .replace(`prompt: ${codon?.prompt}`, `prompt: ${codon?.prompt} (kept short)`)
    .replace(`prompt: >-\n      ${codon?.prompt}`, `prompt: >-\n      ${codon?.prompt} (kept short)`);
  expect(text).toContain(`${codon?.prompt} (kept short)`);
  const file = join(temp(), 'plan.yaml');
  writeFileSync(file, text);
  return file;
}

describeWithClis(
  'ribosome replay with every agent CLI (e2e)',
  Object.values(AGENT_CLIS).map((c) => cliBinary(c)),
  () => {
    it('replays all five agents offline: same codons, tool calls, trees, costs, sentinel outputs; no key kept', async () => {
      const exec = await recorded();
      expect(readFileSync(join(exec, 'cassette.jsonl'), 'utf8')).not.toContain(KEY);
      const { cassette } = readCassette(exec);
      const callers = new Set(cassette.exchanges.map((e) => `${e.caller?.kind} ${e.caller?.id}`));
      expect([...callers].sort()).toEqual(
        [...CODONS.map((c) => `codon ${c.id}`), 'sentinel narrator'].sort(),
      );
      expect(new Set(cassette.exchanges.map((e) => e.api))).toEqual(
        new Set(['anthropic', 'openai-responses', 'gemini']),
      );

      const replay = join(temp(), 'replay');
      const run = await cli(
        ['replay', exec, '--headless', '--exit-when-done', '--check', '--execution', replay],
        {
          ANTHROPIC_API_KEY: '',
          OPENAI_API_KEY: '',
          GEMINI_API_KEY: '',
        },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('--check: the replay matches the recording (5 codons');
      expect(toolResults(replay)).toEqual(toolResults(exec));
      expect(sentinelOutputs(replay)).toEqual(sentinelOutputs(exec));
      expect(Object.keys(sentinelOutputs(exec))).toEqual(['narrator on start', 'narrator on wrap-up']);
    }, 600_000);

    it.each(CODONS.map((c) => [c.agent, c.id]))(
      '%s: a changed prompt misses with the first difference; --on-miss live fills the gap',
      async (_agent, codonId) => {
        const exec = await recorded();
        const plan = changedPlan(codonId);
        const missed = join(temp(), 'missed');
        const run = await replayInto(exec, missed, '--plan', plan);
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(
          new RegExp(
            `Replay: no recorded exchange of codon ${codonId} matches this request \\(POST [^)]+\\)\\. Nearest: exchange \\d+ \\(codon ${codonId}, turn 1\\); they first differ at [^:]+: recorded "[^"]*", now "[^"]*\\(kept short\\)`,
          ),
        );
        const ends = journalRows(missed).filter((e) => e.type === 'codon.completed');
        expect(ends.at(-1)?.data).toMatchObject({ codonId, success: false });
        expect(ends.slice(0, -1).every((e) => e.data.success === true)).toBe(true);

        const live = join(temp(), 'live');
        const filled = await replayInto(
          exec,
          live,
          '--plan',
          plan,
          '--on-miss',
          'live',
          '--scripted-provider',
          SCRIPT,
        );
        expect(filled.code, filled.stderr).toBe(0);
        // The replay's cassette holds the whole run, the changed codon's requests as asked now.
        const { exchanges } = readCassette(live).cassette;
        expect(new Set(exchanges.map((e) => e.caller?.id))).toEqual(
          new Set([...CODONS.map((c) => c.id), 'narrator']),
        );
        const changed = exchanges.filter((e) => e.caller?.id === codonId);
        expect(changed.length).toBeGreaterThan(0);
        expect(changed.every((e) => JSON.stringify(e.request).includes('(kept short)'))).toBe(true);
      },
      360_000,
    );
  },
);
