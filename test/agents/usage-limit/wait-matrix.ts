/**
 * Through a usage limit with each agent CLI, end to end (docs/unattended.md#usage-limits): a real
 * `ribosome run --exit-when-done` of a two-codon plan whose first codon's agent meets the scripted
 * provider's usage limit, resetting 3 seconds later. The codon waits (usageLimit.waiting says until
 * when), starts again at the reset from its start checkpoint and completes; the second codon runs
 * after it; the run ends well. Each agent reads the reset its own way (docs/agents.md#usage-limits):
 * exactly (built-in), to the end of the minute it prints (Claude Code, Codex, opencode with an API
 * key's limit), or not at all (Gemini CLI: the plan's unknownResetWaitMs then). One file per agent:
 * they run side by side.
 */
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { ScriptInput } from '../../../src/llm/mock-provider/script-schema.ts';
import { describeWithClis } from '../../helpers/agent-clis.ts';
import { writePlanAndScript } from '../../helpers/plans.ts';
import { journalRows, runToEnd, tempDir } from '../../helpers/server-process.ts';

export type WaitCase = {
  agent: 'builtin' | 'claude-code' | 'codex' | 'gemini' | 'opencode';
  model: string;
  binary?: string;
  /** Whose limit the provider plays (an API key's resets on a whole minute). */
  kind?: 'subscription' | 'api-key';
  env?: NodeJS.ProcessEnv;
  /** How the reset reaches us: exact, to the end of a printed minute, or not said. */
  reset: 'exact' | 'minute' | 'none';
};

/** What agents ask besides their turns (Claude Code's session title, tool-less calls): answered aside. */
export const SIDE_TRACKS: NonNullable<ScriptInput['tracks']> = [
  {
    name: 'title',
    match: { system: 'Generate a concise, sentence-case title' },
    turns: [],
    whenExhausted: { content: [{ text: '{"title": "Usage limit"}' }] },
  },
  { name: 'tool-less', match: { tools: false }, turns: [], whenExhausted: { content: [{ text: 'OK.' }] } },
];

const TIMEOUT = 300_000;

type Row = { type: string; data: Record<string, unknown>; timestamp: number };
const rowsOf = (exec: string): Row[] =>
  journalRows(exec).map((r) => ({
    type: r.type,
    data: r.data,
    timestamp: Date.parse((JSON.parse(r.json) as { timestamp: string }).timestamp),
  }));

export function describeUsageLimitWait(c: WaitCase): void {
  const temps: Array<{ remove(): void }> = [];
  afterAll(() => {
    for (const t of temps.splice(0)) t.remove();
  });
  describeWithClis(
    `usage limits: ${c.agent} waits for the reset (agents)`,
    c.binary ? [c.binary] : [],
    () => {
      it('waits until the reset it was told, says so, then runs the codon again and the plan to its end', {
        timeout: TIMEOUT,
      }, async () => {
        const script: ScriptInput = {
          tracks: [
            ...SIDE_TRACKS,
            {
              name: 'one',
              match: { firstUser: 'Say one.' },
              turns: [
                { usageLimit: { resetsIn: 3, ...(c.kind ? { kind: c.kind } : {}) } },
                { content: [{ text: 'One done.' }] },
              ],
            },
            { name: 'two', match: { firstUser: 'Say two.' }, turns: [{ content: [{ text: 'Two done.' }] }] },
          ],
          turns: [],
          whenExhausted: {
            error: { status: 400, message: 'usage-limit matrix: no track answers this request' },
          },
        };
        const made = tempDir();
        temps.push(made);
        const plan = `name: usage-limit-wait\nagent: ${c.agent}\nmodel: ${c.model}\nonUsageLimit: { marginMs: ${c.reset === 'none' ? 60000 : 0}, unknownResetWaitMs: 3000 }\ncodons:\n  - id: one\n    prompt: "Say one."\n  - id: two\n    prompt: "Say two."\n`;
        const files = writePlanAndScript(made.path, plan, JSON.stringify(script));
        const exec = join(made.path, 'exec');
        const ran = await runToEnd(files.plan, exec, files.script, [], {
          env: {
            CLAUDE_CODE_MAX_RETRIES: '0',
            RIBOSOME_CODEX_MAX_RETRIES: '0',
            RIBOSOME_GEMINI_MAX_ATTEMPTS: '1',
            ...c.env,
          },
          timeoutMs: TIMEOUT - 10_000,
        });
        expect(ran.code, ran.stderr).toBe(0);
        // Headless, the wait still says itself as it begins and ends (hours may pass with nothing else said).
        expect(ran.stderr).toContain(`ribosome: waiting for the usage limit of ${c.agent}`);
        expect(ran.stderr).toContain('ribosome: the usage-limit wait is over: codon one starts again');
        const rows = rowsOf(exec);
        const waits = rows.filter((r) => r.type === 'usageLimit.waiting');
        expect(waits.map((r) => [r.data.codonId, r.data.agent])).toEqual([['one', c.agent]]);
        const wait = waits[0];
        const until = Date.parse(String(wait?.data.until));
        const resetsAt =
          wait?.data.resetsAt === undefined ? undefined : Date.parse(String(wait.data.resetsAt));
        if (c.reset === 'none') {
          expect(resetsAt).toBeUndefined();
          // Tried again after unknownResetWaitMs: the margin is for a reset the agent gave, not added here.
          expect(Number(wait?.data.waitMs)).toBeLessThanOrEqual(3000);
        } else {
          expect(resetsAt).toBeDefined();
          // The events say until when: the reset (marginMs 0), at most a printed minute after the provider's.
          expect(until).toBe(resetsAt);
        }
        expect(String(wait?.data.message)).toContain(`waiting for the usage limit of ${c.agent}`);
        const failed = rows.find((r) => r.type === 'codon.completed' && r.data.success === false);
        expect(failed?.data.failureReason).toMatchObject({ type: 'usage-limit', retriable: true });
        expect(rows.filter((r) => r.type === 'usageLimit.ended').map((r) => r.data.how)).toEqual(['reset']);
        const starts = rows.filter((r) => r.type === 'codon.started');
        expect(starts.map((r) => r.data.codonId)).toEqual(['one', 'one', 'two']);
        // It started again at the reset, not before.
        expect(starts[1]?.timestamp).toBeGreaterThanOrEqual(until);
        const ends = rows
          .filter((r) => r.type === 'codon.completed')
          .map((r) => [r.data.codonId, r.data.success]);
        expect(ends).toEqual([
          ['one', false],
          ['one', true],
          ['two', true],
        ]);
      });
    },
  );
}
