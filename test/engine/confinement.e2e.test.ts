/**
 * Confinement through a real server, the built-in agent and the scripted provider: an agent's Bash
 * (which is not confined) plants symlinks and hard links to files outside the agent root; the file
 * tools, rig setup copies and the archive then refuse to go through them.
 */
import { existsSync, lstatSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RibosomeClient } from '../../src/core/client/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { writeTurns } from '../helpers/plans.ts';

const { serve } = e2eResources();

/** Script turns: one tool call each, then a closing text. */
function toolTurns(calls: Array<{ name: string; input: Record<string, unknown> }>, end: string): string {
  return `${calls.map((call) => `  - content:\n      - tool_use: ${JSON.stringify(call)}\n`).join('')}  - content:\n      - text: ${end}\n`;
}

async function untilCompleted(client: RibosomeClient, codonId: string) {
  const seen = (await client.syncHistory()).find(
    (e) => e.type === 'codon.completed' && e.data.codonId === codonId,
  );
  return seen ?? client.next('codon.completed', (e) => e.data.codonId === codonId, 60_000);
}

describe('confinement (e2e)', () => {
  it("the built-in agent's Write, Edit and Read refuse dangling symlinks, links out and hard links", async () => {
    // The agent root is <temp>/exec/agentRoot: ../../ is the temp directory, outside it.
    const plant =
      "printf 'original\\n' > ../../outside.txt && ln ../../outside.txt hard.txt && " +
      'ln -s ../../outside.txt out.txt && ln -s ../../created-outside.txt danglink && ln -s ../.. updir';
    const calls = [
      { name: 'Bash', input: { command: plant } },
      { name: 'Write', input: { file_path: 'danglink', content: 'pwned' } },
      { name: 'Write', input: { file_path: 'updir/created-outside.txt', content: 'pwned' } },
      { name: 'Read', input: { file_path: 'out.txt' } },
      { name: 'Edit', input: { file_path: 'out.txt', old_string: 'original', new_string: 'pwned' } },
      { name: 'Write', input: { file_path: 'hard.txt', content: 'pwned' } },
      { name: 'Edit', input: { file_path: 'hard.txt', old_string: 'original', new_string: 'pwned' } },
    ];
    // Unconfined: the agent's own checks are what is tested (the sandbox would stop the links first).
    const plan = 'name: t\nagent: builtin\nsandbox: off\ncodons:\n  - id: probe\n    prompt: Probe.\n';
    const { client, exec, root } = await serve(plan, `turns:\n${toolTurns(calls, 'Done.')}`);
    const completed = await untilCompleted(client, 'probe');
    expect(completed.type === 'codon.completed' && completed.data.success).toBe(true);

    const temp = realpathSync(dirname(exec));
    const agentRoot = realpathSync(root);
    const results = (await client.syncHistory()).flatMap((e) => (e.type === 'tool.result' ? [e.data] : []));
    expect(results.map((r) => [r.toolName, r.isError])).toEqual([
      ['Bash', false],
      ['Write', true],
      ['Write', true],
      ['Read', true],
      ['Edit', true],
      ['Write', true],
      ['Edit', true],
    ]);
    const outsideRoot = `outside the agent root ${agentRoot}`;
    expect(results[1]?.result).toContain(
      `refused: danglink is a symlink to ${join(temp, 'created-outside.txt')}, ${outsideRoot}`,
    );
    expect(results[2]?.result).toContain(`refused: updir is a symlink to ${temp}, ${outsideRoot}`);
    for (const r of results.slice(3, 5)) expect(r.result).toContain('refused: out.txt is a symlink to');
    for (const r of results.slice(5)) expect(r.result).toContain('refused: hard.txt has 2 hard links');

    expect(readFileSync(join(temp, 'outside.txt'), 'utf8')).toBe('original\n');
    expect(existsSync(join(temp, 'created-outside.txt'))).toBe(false);
  });

  it('rig setup copy and the archive refuse a symlink out that an earlier codon made', async () => {
    const plant =
      'mkdir -p ../../outside && echo outside-log > ../../outside/a.log && ' +
      'ln -s ../../outside logs && ln -s ../../outside docs && ln -s ../../outside/a.log link.log';
    // Unconfined: the rig's and the archive's own checks are what is tested.
    const plan = `name: t
agent: builtin
sandbox: off
codons:
  - id: one
    prompt: Plant links.
  - id: two
    prompt: Write a log.
    archiveOnSuccess: ["logs/*.log", "*.log"]
  - id: three
    prompt: Never runs.
    rigSetup:
      - copy: { from: plan.yaml, to: docs }
`;
    const script = `turns:\n${toolTurns([{ name: 'Bash', input: { command: plant } }], 'Planted.')}${writeTurns('own.log', 'mine')}`;
    const { client, exec, root } = await serve(plan, script);
    const failed = await untilCompleted(client, 'three');
    const temp = realpathSync(dirname(exec));
    const outside = join(temp, 'outside');
    const agentRoot = realpathSync(root);

    // The copy was refused before anything was written through docs/.
    expect(failed.type === 'codon.completed' && failed.data).toMatchObject({
      success: false,
      failureReason: {
        message: expect.stringContaining(
          `copy ${join(temp, 'plan.yaml')} -> docs) failed: refused: docs is a symlink to ${outside}, outside the agent root ${agentRoot}`,
        ),
      },
    });
    expect(existsSync(join(outside, 'plan.yaml'))).toBe(false);

    // The archive moved the run's own log and the link itself, and left the file behind logs/ alone.
    const history = await client.syncHistory();
    const partial = history.find((e) => e.type === 'archive.partial');
    expect(partial?.type === 'archive.partial' && partial.data).toMatchObject({
      codonId: 'two',
      archivedFiles: ['link.log', 'own.log'],
      failedFiles: ['logs/a.log'],
    });
    const infos = history.flatMap((e) => (e.type === 'info' ? [e.data.message] : []));
    expect(infos).toContain(
      `[two] archive: logs/a.log not moved: refused: logs is a symlink to ${outside}, outside the agent root ${agentRoot}`,
    );
    expect(readFileSync(join(outside, 'a.log'), 'utf8')).toBe('outside-log\n');
    expect(lstatSync(join(exec, 'rigArchive/two/link.log')).isSymbolicLink()).toBe(true);
    expect(existsSync(join(exec, 'rigArchive/two/logs'))).toBe(false);
  });
});
