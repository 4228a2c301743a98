/**
 * A change to a file checkpoints leave out, through a real server, the built-in agent and the
 * scripted provider (issue 30 Low "activity noise"): the agent writes .gitignore, kept.txt and the
 * ignored package-lock.json; the client's file.updated events mark the lock file only, the dashboard's
 * Changes tree lists kept.txt and not it, and the codon's checkpoint holds kept.txt and not it.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initialDashboard, reduceDashboard } from '../../src/clients/web/model/dashboard.ts';
import { fileTree } from '../../src/clients/web/model/file-tree.ts';
import type { ServerEvent } from '../../src/core/protocol/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';

const { serve } = e2eResources();

describe('changes to ignored files (e2e)', () => {
  it('are marked ignored, left out of the Changes tree, and out of the checkpoint', async () => {
    const plan = 'name: t\nagent: builtin\ncodons:\n  - id: deps\n    prompt: Install.\n';
    const write = (path: string, content: string) =>
      `  - content:\n      - tool_use: ${JSON.stringify({ name: 'Write', input: { file_path: path, content } })}\n`;
    const script = `turns:\n${write('.gitignore', 'package-lock.json\n')}${write('kept.txt', 'kept\n')}${write('package-lock.json', '{}\n')}  - content:\n      - text: Installed.\n`;
    const { client, exec } = await serve(plan, script);

    // The codon's end and the three files' changes, whichever comes last (file changes may trail the codon).
    const done = (history: readonly ServerEvent[]) => {
      const seen = new Set(history.flatMap((e) => (e.type === 'file.updated' ? [e.data.path] : [])));
      return (
        ['.gitignore', 'kept.txt', 'package-lock.json'].every((p) => seen.has(p)) &&
        history.some((e) => e.type === 'server.idle' && e.data.reason === 'all-codons-completed')
      );
    };
    let history: ServerEvent[];
    for (;;) {
      const next = client.waitFor(() => true, 60_000, 'the codon and its file changes');
      history = await client.syncHistory();
      if (done(history)) {
        next.catch(() => {});
        break;
      }
      await next;
    }

    // The watcher reports the three files as it sees them: in any order under load.
    const changes = history.flatMap((e) => (e.type === 'file.updated' ? [e.data] : []));
    const byPath = [...changes].sort((a, b) => (a.path < b.path ? -1 : 1));
    expect(byPath.map((c) => [c.path, c.action, c.ignored ?? false])).toEqual([
      ['.gitignore', 'created', false],
      ['kept.txt', 'created', false],
      ['package-lock.json', 'created', true],
    ]);

    const dashboard = reduceDashboard(initialDashboard('ws://x'), { kind: 'events', events: history });
    expect(fileTree(dashboard.files).children.map((n) => n.name)).toEqual(['.gitignore', 'kept.txt']);

    const list = await client.request('checkpoint.list', {}, 'checkpoint.list');
    const end = list.data.checkpoints.findLast(
      (c) => c.codonId === 'deps' && c.checkpointType === 'completed',
    );
    expect(end).toBeDefined();
    const held = execFileSync(
      'git',
      [`--git-dir=${join(exec, '.ribosome', 'checkpoints.git')}`, 'ls-tree', '-r', '--name-only', end!.sha],
      { encoding: 'utf8' },
    );
    expect(held.trim().split('\n').sort()).toEqual(['.gitignore', 'kept.txt']);
  });
});
