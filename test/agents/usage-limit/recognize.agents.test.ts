/**
 * Every agent, against the scripted provider playing a usage limit (docs/agents.md#usage-limits), ends
 * its codon as `usage-limit` with the reset its words or its provider gave; an ordinary 429 of a second
 * stays `rate-limit`. One-codon plans in a real `ribosome run`, with `onUsageLimit: fail`.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeBinary } from '../../../src/agents/claude-code/claude-binary.ts';
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { CODEX } from '../../../src/agents/codex/codex-cli.ts';
import { GEMINI_CLI } from '../../../src/agents/gemini/gemini-cli.ts';
import { OPENCODE } from '../../../src/agents/opencode/opencode-cli.ts';
import { describeWithClis } from '../../helpers/agent-clis.ts';
import { writePlanAndScript } from '../../helpers/plans.ts';
import { journalRows, runToEnd, tempDir } from '../../helpers/server-process.ts';

type Case = {
  title: string;
  agent: 'builtin' | 'claude-code' | 'codex' | 'gemini' | 'opencode';
  model: string;
  binary?: string;
  /** The limit the provider plays: resetting in `resetsIn` seconds. */
  limit: { resetsIn: number; kind?: 'subscription' | 'api-key' };
  env?: NodeJS.ProcessEnv;
  /** How the reset reaches us: exact, to the end of a printed minute, or not said. */
  reset: 'exact' | 'minute' | 'none';
};

/** Fewer retries inside each CLI, so an ordinary 429 ends the codon at once. */
const FEWER_RETRIES: NodeJS.ProcessEnv = {
  CLAUDE_CODE_MAX_RETRIES: '0',
  RIBOSOME_CODEX_MAX_RETRIES: '0',
  RIBOSOME_GEMINI_MAX_ATTEMPTS: '1',
};

const CASES: Case[] = [
  {
    title: 'built-in',
    agent: 'builtin',
    model: 'claude-sonnet-4-5',
    limit: { resetsIn: 60 },
    reset: 'exact',
  },
  {
    title: 'Claude Code with an OAuth token (a subscription)',
    agent: 'claude-code',
    model: 'claude-sonnet-4-5',
    binary: claudeBinary(),
    limit: { resetsIn: 60 },
    // Its subscriber path: a claude.ai token, and no API key beside it.
    env: { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-ribosome-test', ANTHROPIC_API_KEY: '' },
    reset: 'minute',
  },
  {
    title: 'Claude Code with an API key',
    agent: 'claude-code',
    model: 'claude-sonnet-4-5',
    binary: claudeBinary(),
    limit: { resetsIn: 60, kind: 'api-key' },
    reset: 'minute',
  },
  {
    title: 'Codex',
    agent: 'codex',
    model: 'gpt-6.2-sol',
    binary: cliBinary(CODEX),
    limit: { resetsIn: 60 },
    reset: 'minute',
  },
  // Gemini CLI drops Google's retry delay of a daily quota: it says no reset.
  {
    title: 'Gemini CLI',
    agent: 'gemini',
    model: 'gemini-2.5-flash',
    binary: cliBinary(GEMINI_CLI),
    limit: { resetsIn: 60 },
    reset: 'none',
  },
  // opencode waits out a retry-after itself, however long: a limit is known once it would wait past 5 min.
  {
    title: 'opencode',
    agent: 'opencode',
    model: 'claude-sonnet-4-5',
    binary: cliBinary(OPENCODE),
    limit: { resetsIn: 600 },
    reset: 'exact',
  },
];

const TIMEOUT = 300_000;
const temps: Array<{ remove(): void }> = [];
afterAll(() => {
  for (const t of temps.splice(0)) t.remove();
});

const plan = (c: Case) =>
  `name: usage-limit\nagent: ${c.agent}\nmodel: ${c.model}\nonUsageLimit: fail\ncodons:\n  - id: one\n    prompt: "Say hello."\n`;

async function runOne(c: Case, script: string) {
  const made = tempDir();
  temps.push(made);
  const files = writePlanAndScript(made.path, plan(c), script);
  const exec = join(made.path, 'exec');
  const before = Date.now();
  const ran = await runToEnd(files.plan, exec, files.script, [], {
    env: { ...FEWER_RETRIES, ...c.env },
    timeoutMs: TIMEOUT - 10_000,
  });
  const after = Date.now();
  const completed = journalRows(exec).filter((r) => r.type === 'codon.completed');
  return { ran, completed: completed.map((r) => r.data), before, after };
}

for (const c of CASES) {
  describeWithClis(`usage limits: ${c.title} (agents)`, c.binary ? [c.binary] : [], () => {
    it('a usage limit ends the codon as usage-limit, with the reset the agent or provider gave', {
      timeout: TIMEOUT,
    }, async () => {
      const script = JSON.stringify({ turns: [{ usageLimit: c.limit }] });
      const { ran, completed, before, after } = await runOne(c, script);
      expect(ran.code, ran.stderr).toBe(1);
      expect(completed).toEqual([
        expect.objectContaining({
          codonId: 'one',
          success: false,
          failureReason: expect.objectContaining({ type: 'usage-limit', retriable: true }),
        }),
      ]);
      const resetsAt = (completed[0] as { failureReason: { resetsAt?: string } }).failureReason.resetsAt;
      if (c.reset === 'none') {
        expect(resetsAt).toBeUndefined();
        return;
      }
      // The provider fixed its reset at its first refusal, between our start and the codon's end; a
      // time printed to the minute is read as that minute's end (never before the reset), and an API
      // key's reset is a whole minute.
      const at = Date.parse(resetsAt ?? '');
      const slack = c.reset === 'minute' ? 60_000 : 1_000;
      expect(at).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + c.limit.resetsIn * 1000 - 1_000);
      expect(at).toBeLessThanOrEqual(after + c.limit.resetsIn * 1000 + slack);
    });

    // Claude Code with an OAuth token is not given an ordinary 429 here: the API-key case covers it.
    if (c.limit.kind !== 'api-key' && c.env?.CLAUDE_CODE_OAUTH_TOKEN === undefined) {
      it('an ordinary 429 with a retry-after of 1 s stays rate-limit', { timeout: TIMEOUT }, async () => {
        const script = JSON.stringify({
          turns: [],
          whenExhausted: { error: { status: 429, retryAfter: 1 } },
        });
        const { ran, completed } = await runOne(c, script);
        expect(ran.code, ran.stderr).toBe(1);
        expect(completed).toEqual([
          expect.objectContaining({
            codonId: 'one',
            failureReason: expect.objectContaining({ type: 'rate-limit', retriable: true }),
          }),
        ]);
        expect(completed[0]).not.toHaveProperty('failureReason.resetsAt');
      });
    }
  });
}

describe('usage limits: the cases', () => {
  it('cover every agent', () => {
    expect(new Set(CASES.map((c) => c.agent))).toEqual(
      new Set(['builtin', 'claude-code', 'codex', 'gemini', 'opencode']),
    );
  });
});
