import { describe, expect, it } from 'vitest';
import { CommandError, RibosomeClient } from '../../src/core/client/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { codonScript, simplePlan } from '../helpers/plans.ts';

const { clients, serve } = e2eResources();

describe('checkpoint.diff (ours)', () => {
  it("between a codon's start and end shows the file it wrote; readonly may ask; unknown SHA not found", async () => {
    const { server, client } = await serve(simplePlan(['one', 'two']), codonScript({ one: 'ok', two: 'ok' }));
    const all = (e: { data: { reason?: string } }) => e.data.reason === 'all-codons-completed';
    if (!client.handshake.eventHistory.some((e) => e.type === 'server.idle' && all(e)))
      await client.next('server.idle', all, 60_000);
    const reader = await RibosomeClient.connect(server.url, { mode: 'readonly' });
    clients.push(reader);
    const list = await reader.request('checkpoint.list', {}, 'checkpoint.list');
    const shas = list.data.checkpoints.map((c) => [c.codonId, c.sha] as const);
    // One checkpoint per codon at its end: two starts where one ended.
    const start = shas.findIndex(([codonId]) => codonId === 'two') - 1;
    const [from, to] = [shas[start]![1], shas[start + 1]![1]];
    const diff = await reader.request('checkpoint.diff', { from: from.slice(0, 10), to }, 'checkpoint.diff');
    expect(diff.data).toMatchObject({ from, to, truncated: false, limitBytes: 2 * 1024 * 1024 });
    expect(diff.data.files).toEqual([
      {
        path: 'two.txt',
        status: 'added',
        binary: false,
        additions: 1,
        deletions: 0,
        hunks: [
          { oldStart: 0, oldLines: 0, newStart: 1, newLines: 1, lines: [{ kind: 'add', text: 'two done' }] },
        ],
      },
    ]);
    for (const [path, files] of [
      ['two.txt', ['two.txt']],
      ['one.txt', []],
    ] as const) {
      const only = await reader.request('checkpoint.diff', { from, to, path }, 'checkpoint.diff');
      expect(only.data.files.map((f) => f.path)).toEqual(files);
    }
    const missing = await reader
      .request('checkpoint.diff', { from: 'ffffffffff', to }, 'checkpoint.diff')
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(CommandError);
    expect((missing as CommandError).code).toBe('CHECKPOINT_NOT_FOUND');
  });
});
