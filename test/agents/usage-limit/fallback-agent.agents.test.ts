/**
 * onUsageLimit fallbackAgent with two real agents (docs/unattended.md#usage-limits): the built-in
 * agent meets a usage limit in codon one, after writing half.txt; Claude Code, its fallbackAgent,
 * takes the codon over at once from its start checkpoint (it checks half.txt is gone) and, while the
 * built-in agent is still limited, runs codon two too (which outlasts the reset); codon three, started
 * after the reset, goes back to the built-in agent.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { claudeBinary } from '../../../src/agents/claude-code/claude-binary.ts';
import type { ScriptInput } from '../../../src/llm/mock-provider/script-schema.ts';
import { describeWithClis } from '../../helpers/agent-clis.ts';
import { writePlanAndScript } from '../../helpers/plans.ts';
import { journalRows, runToEnd, tempDir } from '../../helpers/server-process.ts';
import { SIDE_TRACKS } from './wait-matrix.ts';

const TIMEOUT = 240_000;
const OWN = 'claude-sonnet-4-5';
const FALLBACK = 'claude-haiku-4-5';
const temps: Array<{ remove(): void }> = [];
afterAll(() => {
  for (const t of temps.splice(0)) t.remove();
});

const bash = (command: string) => ({ tool_use: { name: 'Bash', input: { command } } });

describeWithClis('usage limits: a fallbackAgent takes over (agents)', [claudeBinary()], () => {
  it('runs the codon with the other agent from its start checkpoint, and later codons go back to their own after the reset', {
    timeout: TIMEOUT,
  }, async () => {
    const script: ScriptInput = {
      tracks: [
        ...SIDE_TRACKS,
        // The built-in agent (its model): half a step, then the limit, 5 s from its first refusal.
        {
          name: 'one-own',
          match: { firstUser: 'Do one.', model: OWN },
          turns: [
            { content: [{ tool_use: { name: 'Write', input: { file_path: 'half.txt', content: 'half' } } }] },
            { usageLimit: { resetsIn: 5 } },
          ],
        },
        // Claude Code (the fallback's model): what tree did it get?
        {
          name: 'one-fallback',
          match: { firstUser: 'Do one.', model: FALLBACK },
          turns: [
            {
              content: [
                bash('if test -e half.txt; then echo dirty > seen.txt; else echo clean > seen.txt; fi'),
              ],
            },
            { content: [{ text: 'Checked.' }] },
          ],
        },
        // Codon two, still during the limit: Claude Code again; it outlasts the reset.
        {
          name: 'two-fallback',
          match: { firstUser: 'Do two.', model: FALLBACK },
          turns: [{ content: [bash('sleep 6; echo two > two.txt')] }, { content: [{ text: 'Two done.' }] }],
        },
        {
          name: 'three-own',
          match: { firstUser: 'Do three.', model: OWN },
          turns: [{ content: [{ text: 'Three done.' }] }],
        },
      ],
      turns: [],
      whenExhausted: { error: { status: 400, message: 'fallback test: no track answers this request' } },
    };
    const plan = `name: fallback\nagent: builtin\nmodel: ${OWN}\nonUsageLimit:\n  marginMs: 0\n  fallbackAgent: { agent: claude-code, model: ${FALLBACK} }\ncodons:\n  - id: one\n    prompt: Do one.\n  - id: two\n    prompt: Do two.\n  - id: three\n    prompt: Do three.\n`;
    const made = tempDir();
    temps.push(made);
    const files = writePlanAndScript(made.path, plan, JSON.stringify(script));
    const exec = join(made.path, 'exec');
    const ran = await runToEnd(files.plan, exec, files.script, [], {
      env: { RIBOSOME_AGENT_MAX_RETRIES: '0', CLAUDE_CODE_MAX_RETRIES: '0' },
      timeoutMs: TIMEOUT - 10_000,
    });
    expect(ran.code, ran.stderr).toBe(0);
    const rows = journalRows(exec);
    const starts = rows.filter((r) => r.type === 'codon.started').map((r) => [r.data.codonId, r.data.agent]);
    expect(starts).toEqual([
      ['one', 'builtin'],
      ['one', 'claude-code'],
      ['two', 'claude-code'],
      ['three', 'builtin'],
    ]);
    expect(rows.filter((r) => r.type === 'usageLimit.waiting')).toEqual([]);
    const root = join(exec, 'agentRoot');
    expect(readFileSync(join(root, 'seen.txt'), 'utf8').trim()).toBe('clean');
    expect(readFileSync(join(root, 'two.txt'), 'utf8').trim()).toBe('two');
    const infos = rows.filter((r) => r.type === 'info').map((r) => String(r.data.message));
    expect(infos.some((m) => m.includes('goes to its fallbackAgent claude-code'))).toBe(true);
    expect(
      infos.some((m) => m.includes('codon two runs with its fallbackAgent claude-code until then')),
    ).toBe(true);
  });
});
