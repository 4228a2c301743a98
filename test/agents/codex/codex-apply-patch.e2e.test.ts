/**
 * The real Codex CLI applies patches a script sends as freeform apply_patch calls (custom_tool_call
 * items), with its default model (gpt-6.2-sol, whose tools come in an additional_tools item): the file
 * is added then updated in the agent root, both edits are tool events, each next request carries the
 * custom_tool_call_output, and the codon's checkpoint holds the file.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { CODEX } from '../../../src/agents/codex/codex-cli.ts';
import { journalRows, killAll, runToEnd, tempDir } from '../../helpers/server-process.ts';

const codex = cliBinary(CODEX);
const found = spawnSync(codex, ['--version'], { encoding: 'utf8' }).status === 0;
if (!found) {
  if (process.env.CI) throw new Error(`the Codex CLI (${codex}) is missing: CI installs it (.ci/run)`);
  console.log(
    `skipping the Codex apply_patch e2e test: no Codex CLI (${codex}); npm install -g ${CODEX.pkg}`,
  );
}

const PLAN = `name: codex-apply-patch
agent: codex
codons:
  - id: one
    prompt: Patch hello.txt.
`;

/**
 * Each step's track matches the tool output of the step before (Codex's words for an applied patch):
 * the next request carried the custom_tool_call_output. The first matches only a request declaring
 * tools, which gpt-6.2-sol does in an additional_tools item. Anything else is a 400.
 */
const SCRIPT = `tracks:
  - name: updated
    match: { lastUser: "M hello.txt" }
    turns:
      - content: [{ text: Patched hello.txt. }]
  - name: added
    match: { lastUser: "A hello.txt" }
    turns:
      - content:
          - tool_use:
              name: apply_patch
              input: |-
                *** Begin Patch
                *** Update File: hello.txt
                @@
                 hello
                +there
                *** End Patch
  - name: start
    match: { firstUser: Patch hello.txt., tools: true }
    turns:
      - content:
          - text: Adding hello.txt.
          - tool_use:
              name: apply_patch
              input: |-
                *** Begin Patch
                *** Add File: hello.txt
                +hello
                *** End Patch
turns: []
whenExhausted: { error: { status: 400, message: "no track of the script answers this request" } }
`;

const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  killAll();
  for (const dir of dirs.splice(0)) dir.remove();
});

/** The commit of the codon's completed checkpoint, from the shadow repository's run branch. */
function completedCheckpoint(exec: string, runId: string, codonId: string): string | undefined {
  const log = execFileSync(
    'git',
    [
      '--git-dir',
      join(exec, '.ribosome/checkpoints.git'),
      'log',
      '--format=%H %(trailers:key=Ribosome-Checkpoint-Type,valueonly,separator=) %(trailers:key=Ribosome-Codon-Id,valueonly,separator=)',
      `run/${runId}`,
    ],
    { encoding: 'utf8' },
  );
  return log
    .trim()
    .split('\n')
    .map((line) => line.split(' '))
    .find(([, type, codon]) => type === 'completed' && codon === codonId)?.[0];
}

describe.skipIf(!found)('Codex CLI applies a scripted apply_patch (e2e)', () => {
  it('adds then updates a file: tool events for both, the checkpoint holds it', async () => {
    const dir = tempDir('ribosome-codex-patch-');
    dirs.push(dir);
    const plan = join(dir.path, 'plan.yaml');
    const script = join(dir.path, 'script.yaml');
    const exec = join(dir.path, 'exec');
    writeFileSync(plan, PLAN);
    writeFileSync(script, SCRIPT);
    const { code, stderr } = await runToEnd(plan, exec, script, [], { timeoutMs: 120_000 });
    expect(code, stderr).toBe(0);
    expect(readFileSync(join(exec, 'agentRoot', 'hello.txt'), 'utf8')).toBe('hello\nthere\n');

    const rows = journalRows(exec);
    expect(rows.find((r) => r.type === 'codon.completed')?.data).toMatchObject({ success: true });
    const calls = rows.filter((r) => r.type === 'assistant.action' && r.data.action === 'tool_use');
    expect(calls.map((r) => r.data.toolName)).toEqual(['file_change', 'file_change']);
    // Relative to the agent root, as the other agents' paths are (Codex prints them absolute).
    expect(calls.map((r) => r.data.toolInput)).toMatchObject([
      { path: 'hello.txt', changes: [{ kind: 'add', path: 'hello.txt' }] },
      { path: 'hello.txt', changes: [{ kind: 'update', path: 'hello.txt' }] },
    ]);
    const results = rows.filter((r) => r.type === 'tool.result');
    expect(results.map((r) => [r.data.toolName, r.data.isError])).toEqual([
      ['file_change', false],
      ['file_change', false],
    ]);
    expect(results.map((r) => String(r.data.result).split(' ')[0])).toEqual(['add', 'update']);

    const runId = rows.at(-1)?.runId ?? '';
    const sha = completedCheckpoint(exec, runId, 'one');
    expect(sha, 'codon one has a completed checkpoint').toBeDefined();
    const held = execFileSync(
      'git',
      ['--git-dir', join(exec, '.ribosome/checkpoints.git'), 'show', `${sha}:hello.txt`],
      { encoding: 'utf8' },
    );
    expect(held).toBe('hello\nthere\n');
  }, 150_000);
});
