/**
 * The real Codex CLI under `ribosome run` against the scripted provider (its Responses API), with
 * Codex's own default model: a command run by its shell tool writes a file, tokens are priced as an
 * estimate, a continuing codon carries the earlier codon's conversation, and a 429 is a rate limit.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { CODEX, CODEX_DEFAULT_MODEL } from '../../../src/agents/codex/codex-cli.ts';
import { journalRows, killAll, runToEnd, tempDir } from '../../helpers/server-process.ts';

const codex = cliBinary(CODEX);
const found = spawnSync(codex, ['--version'], { encoding: 'utf8' }).status === 0;
if (!found) {
  if (process.env.CI) throw new Error(`the Codex CLI (${codex}) is missing: CI installs it (.ci/run)`);
  console.log(`skipping the Codex e2e tests: no Codex CLI (${codex}); npm install -g ${CODEX.pkg}`);
}

const PLAN = `name: codex-e2e
agent: codex
codons:
  - id: one
    prompt: Do one.
  - id: two
    prompt: Do two.
    continuation: continue-previous
`;

/** Codon two's track matches only a request that still holds codon one's prompt: the session went on. */
const SCRIPT = `tracks:
  - name: two-continued
    match: { firstUser: "Do one.", lastUser: "Do two." }
    turns:
      - content:
          - tool_use: { name: exec_command, input: { cmd: "echo two > two.txt" } }
  - name: one
    match: { firstUser: "Do one." }
    turns:
      - content:
          - text: Writing one.txt.
          - tool_use: { name: exec_command, input: { cmd: "echo one > one.txt" } }
      - content: [{ text: Wrote one.txt. }]
turns: []
`;

const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  killAll();
  for (const dir of dirs.splice(0)) dir.remove();
});

function setup(plan: string, script: string) {
  const dir = tempDir('ribosome-codex-');
  dirs.push(dir);
  writeFileSync(join(dir.path, 'plan.yaml'), plan);
  writeFileSync(join(dir.path, 'script.yaml'), script);
  return {
    plan: join(dir.path, 'plan.yaml'),
    script: join(dir.path, 'script.yaml'),
    exec: join(dir.path, 'exec'),
  };
}

describe.skipIf(!found)('Codex CLI under ribosome run, scripted provider (e2e)', () => {
  it('writes files with its shell tool, prices its tokens as an estimate, continues the session', async () => {
    const { plan, script, exec } = setup(PLAN, SCRIPT);
    const { code, stderr } = await runToEnd(plan, exec, script, [], { timeoutMs: 120_000 });
    expect(code, stderr).toBe(0);
    const root = join(exec, 'agentRoot');
    expect(readFileSync(join(root, 'one.txt'), 'utf8')).toBe('one\n');
    expect(readFileSync(join(root, 'two.txt'), 'utf8')).toBe('two\n');
    const rows = journalRows(exec);
    expect(rows.filter((r) => r.type === 'codon.completed').map((r) => r.data.success)).toEqual([true, true]);
    expect(rows.find((r) => r.type === 'tool.result')?.data).toMatchObject({
      codonId: 'one',
      toolName: 'command_execution',
      isError: false,
    });
    const usage = rows.filter((r) => r.type === 'token.usage').at(-1)?.data;
    expect(usage).toMatchObject({ codonId: 'two', modelId: CODEX_DEFAULT_MODEL, costEstimated: true });
    expect(usage?.totalCost).toBeGreaterThan(0);
  }, 150_000);

  it('a 429 it gives up on is a rate limit', async () => {
    const { plan, script, exec } = setup(
      'name: codex-429\nagent: codex\ncodons:\n  - id: one\n    prompt: Do one.\n',
      'turns:\n  - error: { status: 429, retryAfter: 0 }\n    repeat: 5\n',
    );
    const { code } = await runToEnd(plan, exec, script, [], {
      timeoutMs: 120_000,
      env: { RIBOSOME_CODEX_MAX_RETRIES: '0' },
    });
    expect(code).toBe(1);
    const completed = journalRows(exec).find((r) => r.type === 'codon.completed');
    expect(completed?.data).toMatchObject({
      success: false,
      failureReason: { type: 'rate-limit', retriable: true },
    });
  }, 150_000);
});
