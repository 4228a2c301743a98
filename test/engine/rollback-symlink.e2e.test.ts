import { existsSync, lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RibosomeClient } from '../../src/core/client/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { simplePlan } from '../helpers/plans.ts';

const { serve } = e2eResources();

const bashTurns = (command: string) => `  - content:
      - tool_use: { name: Bash, input: { command: ${JSON.stringify(command)} } }
  - content: [{ text: Done. }]
`;

// The new-user trial: codon one makes a directory, codon two replaces it with a link to another one.
const SCRIPT = `turns:\n${bashTurns('mkdir -p a && echo 1 > a/f.txt')}${bashTurns(
  'mkdir -p b && mv a/f.txt b/ && rm -rf a && ln -s b a',
)}`;

async function rollback(client: RibosomeClient, send: () => string): Promise<void> {
  let id = '';
  const done = client.waitFor(
    (e) => e.type === 'rollback.completed' || (e.type === 'error' && e.data.commandId === id),
    60_000,
    'rollback',
  );
  id = send();
  const last = await done;
  if (last.type === 'error') throw new Error(`${last.data.code}: ${last.data.message}`);
}

describe('checkpoints of a directory replaced by a symlink', () => {
  it('checkpoints the link, rolls back to the directory and forward to the link again', async () => {
    const { client, root } = await serve(simplePlan(['one', 'two']), SCRIPT);
    const completed: boolean[] = [];
    client.onEvent((e) => {
      if (e.type === 'codon.completed') completed.push(e.data.success);
    });
    // Codon two used to fail with CHECKPOINT_FAILED ('a/f.txt' is beyond a symbolic link).
    const firstError = client
      .next('error', () => true, 60_000)
      .then(
        (e) => `${e.data.code}: ${e.data.message}`,
        () => 'no error event',
      );
    const idle = client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    expect(await Promise.race([idle.then(() => 'all completed'), firstError])).toBe('all completed');
    expect(completed).toEqual([true, true]);
    expect(client.handshake.eventHistory.some((e) => e.type === 'error')).toBe(false);
    expect(readlinkSync(join(root, 'a'))).toBe('b');

    const list = await client.request('checkpoint.list', {}, 'checkpoint.list');
    expect(list.data.checkpoints.map((c) => `${c.codonId}:${c.checkpointType}`)).toEqual([
      'one:completed',
      'two:completed',
    ]);

    await rollback(client, () => client.send('rollback.toCodon', { codonId: 'one', checkpointType: 'end' }));
    expect(lstatSync(join(root, 'a')).isDirectory()).toBe(true);
    expect(readFileSync(join(root, 'a/f.txt'), 'utf8')).toBe('1\n');
    expect(existsSync(join(root, 'b'))).toBe(false);

    const two = list.data.checkpoints[1]!.sha;
    await rollback(client, () => client.send('rollback.toCheckpoint', { checkpointSha: two }));
    expect(lstatSync(join(root, 'a')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(root, 'a'))).toBe('b');
    expect(readFileSync(join(root, 'b/f.txt'), 'utf8')).toBe('1\n');
  });
});
