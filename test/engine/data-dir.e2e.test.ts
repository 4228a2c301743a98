/**
 * The data directory (`--data`) through a real server, the built-in agent and the scripted provider:
 * the agent reads it through its link in the agent root, Write and Edit refuse it, the link is in
 * no checkpoint, a rollback leaves it alone, and `{{dataDir}}` in a codon prompt is rendered.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ServerEvent } from '../../src/core/protocol/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { writeTurns } from '../helpers/plans.ts';
import { tempDir } from '../helpers/server-process.ts';

const { serve, temps } = e2eResources();
const data = tempDir();
afterAll(() => data.remove());

const tool = (name: string, input: Record<string, unknown>) =>
  `      - content:\n          - tool_use: ${JSON.stringify({ name, input })}\n`;

describe('the data directory (e2e)', () => {
  it('is read through agentRoot/ribosome-data, refused to Write and Edit, kept out of checkpoints and rollbacks', async () => {
    writeFileSync(join(data.path, 'input.txt'), 'the data\n');
    const plan = `name: t
agent: builtin
codons:
  - id: one
    prompt: "Do one. Read {{dataDir}}/input.txt in {{ agentRoot }}; keep {{other}}."
  - id: two
    prompt: Do two.
`;
    // The track matches only a prompt whose {{dataDir}} became the link's absolute path.
    const script = `tracks:
  - name: one
    match: { firstUser: "/agentRoot/ribosome-data/input.txt in /" }
    turns:
${tool('Read', { file_path: 'ribosome-data/input.txt' })}${tool('Write', { file_path: 'ribosome-data/new.txt', content: 'x' })}${tool('Edit', { file_path: 'ribosome-data/input.txt', old_string: 'the', new_string: 'a' })}      - content: [{ text: "Read it." }]
  - name: two
    match: { firstUser: "Do two." }
    turns:
${writeTurns('b.txt', 'B').replace(/^/gm, '    ')}
`;
    const { client, exec, root } = await serve(plan, script, ['--data', data.path]);
    const idle = (e: ServerEvent) => e.type === 'server.idle' && e.data.reason === 'all-codons-completed';
    if (!(await client.syncHistory()).some(idle)) await client.waitFor(idle, 60_000, 'all codons completed');
    const history = await client.syncHistory();

    expect(client.serverInfo.dataPath).toBe(data.path);
    const link = join(root, 'ribosome-data');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(realpathSync(link)).toBe(realpathSync(data.path));

    const results = history.flatMap((e) => (e.type === 'tool.result' ? [e.data] : []));
    expect(results.map((r) => [r.toolName, r.isError])).toEqual([
      ['Read', false],
      ['Write', true],
      ['Edit', true],
      ['Write', false],
    ]);
    expect(results[0]?.result).toContain('the data');
    const dataReal = realpathSync(data.path);
    for (const r of results.slice(1, 3)) {
      expect(r.result).toContain(`is in the data directory ${dataReal}, which is read-only`);
    }
    expect(readFileSync(join(data.path, 'input.txt'), 'utf8')).toBe('the data\n');
    expect(existsSync(join(data.path, 'new.txt'))).toBe(false);

    // No checkpoint holds the link (nor anything of the data directory).
    const list = await client.request('checkpoint.list', {}, 'checkpoint.list');
    const gitDir = join(exec, '.ribosome', 'checkpoints.git');
    const trees = list.data.checkpoints.map((c) =>
      execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '--name-only', c.sha], { encoding: 'utf8' }),
    );
    expect(trees.at(-1)).toContain('b.txt');
    for (const tree of trees) expect(tree).not.toContain('ribosome-data');
    expect(trees.join('')).not.toContain('input.txt');

    // A rollback to before codon two: b.txt goes, the link and the data stay.
    const done = client.waitFor((e: ServerEvent) => e.type === 'rollback.completed', 60_000, 'rollback');
    client.send('rollback.toCodon', { codonId: 'two', checkpointType: 'start' });
    await done;
    expect(existsSync(join(root, 'b.txt'))).toBe(false);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(link, 'input.txt'), 'utf8')).toBe('the data\n');
  });
});

describe('the data directory written by a shell command (e2e)', () => {
  it('is reported as DATA_DIR_CHANGED, naming what changed; a codon that leaves it alone is not', async () => {
    // Unconfined: with the sandbox on the data directory is read-only and the write fails.
    const plan = `name: t
agent: builtin
sandbox: off
codons:
  - id: one
    prompt: Do one.
  - id: two
    prompt: Do two.
`;
    const bash = JSON.stringify({ name: 'Bash', input: { command: 'echo hi > ribosome-data/bash.txt' } });
    const script = `turns:
  - content:
      - tool_use: ${bash}
  - content: [{ text: "Done." }]
${writeTurns('b.txt', 'B')}`;
    const dir = tempDir();
    temps.push(dir);
    const { client } = await serve(plan, script, ['--data', dir.path]);
    const idle = (e: ServerEvent) => e.type === 'server.idle' && e.data.reason === 'all-codons-completed';
    if (!(await client.syncHistory()).some(idle)) await client.waitFor(idle, 60_000, 'all codons completed');
    const history = await client.syncHistory();
    expect(readFileSync(join(dir.path, 'bash.txt'), 'utf8')).toBe('hi\n');
    const changed = history.flatMap((e) =>
      e.type === 'error' && e.data.code === 'DATA_DIR_CHANGED' ? [e.data] : [],
    );
    expect(changed).toEqual([
      expect.objectContaining({
        severity: 'warning',
        codon: 'one',
        message: expect.stringContaining(': bash.txt'),
      }),
    ]);
  });
});
