import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../src/core/client/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { codonScript, writePlanAndScript } from '../helpers/plans.ts';
import { waitFor } from '../helpers/processes.ts';
import { startServer, tempDir } from '../helpers/server-process.ts';

/**
 * A server whose file descriptors are used up (here by idle TCP connections to its port) cannot
 * start processes: every such failure is an error a client sees, the server lives on, and once the
 * descriptors are free again the same codons run to the end.
 */
const { temps, clients } = e2eResources();

const FD_LIMIT = 64;
// Unconfined: the rig step is where the descriptors run out (a sandbox's gate would run out first).
const PLAN = `name: test
agent: builtin
sandbox: off
codons:
  - id: rigged
    prompt: Do rigged.
    rigSetup:
      - run: "true"
  - id: plain
    prompt: Do plain.
`;

describe('a server out of file descriptors', () => {
  it('fails the codon (rig step, agent start) and its checkpoint with the reason, lives on, then recovers', async () => {
    const t = tempDir();
    temps.push(t);
    const files = writePlanAndScript(t.path, PLAN, codonScript({ rigged: 'ok', plain: 'ok' }));
    const server = await startServer(
      files.plan,
      join(t.path, 'exec'),
      ['--no-autostart', '--scripted-provider', files.script],
      30_000,
      {},
      { fdLimit: FD_LIMIT },
    );
    const client = await RibosomeClient.connect(server.url, { mode: 'readandwrite' });
    clients.push(client);
    const errors: string[] = [];
    client.on('error', (e) => errors.push(`${e.data.code}: ${e.data.message}`));
    const openFds = () => readdirSync(`/proc/${server.child.pid}/fd`).length;

    // Plain TCP connections, never a request, until the server holds every descriptor it may.
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < FD_LIMIT && openFds() < FD_LIMIT; i++) {
        await new Promise<void>((resolve) => {
          const socket = connect(server.port, '127.0.0.1', () => resolve());
          socket.on('error', () => resolve());
          sockets.push(socket);
        });
      }
      await waitFor(() => openFds() >= FD_LIMIT, 'the server to run out of file descriptors', 10_000);

      const codonEnd = async (codonId: string) => {
        const ended = client.next('codon.completed', (e) => e.data.codonId === codonId, 30_000);
        client.send('codon.start', { codonId });
        return (await ended).data;
      };
      const tooMany = /EMFILE \(too many open files/;
      const rigged = await codonEnd('rigged');
      expect(rigged.success).toBe(false);
      expect(rigged.failureReason?.message).toMatch(
        /^rig setup step 1 \(\$ true\) failed: could not be started/,
      );
      expect(rigged.failureReason?.message).toMatch(tooMany);
      const plain = await codonEnd('plain');
      expect(plain.success).toBe(false);
      expect(plain.failureReason?.message).toMatch(
        /^the agent could not be started: spawn .*ribosome EMFILE/,
      );
      expect(plain.failureReason?.message).toMatch(tooMany);
      // Its error checkpoint could not be taken either (git cannot start), and that is said too.
      expect(errors).toContainEqual(
        expect.stringMatching(
          /^CHECKPOINT_FAILED: the error checkpoint of codon plain could not be written: .*EMFILE \(too many open files/,
        ),
      );
      // Alive and answering.
      expect(server.child.exitCode).toBeNull();
      await client.request('ping', undefined, 'pong');
    } finally {
      for (const socket of sockets) socket.destroy();
    }

    await waitFor(() => openFds() < FD_LIMIT - 10, 'the server to close the connections', 10_000);
    for (const codonId of ['rigged', 'plain']) {
      const ended = client.next('codon.completed', (e) => e.data.codonId === codonId, 30_000);
      client.send('codon.start', { codonId });
      // A success: its agent ran and its completed checkpoint was written.
      expect((await ended).data).toMatchObject({ success: true });
    }
    expect(server.child.exitCode).toBeNull();
    // And it still stops when asked: the failed spawns left no pipe behind to keep it alive (found
    // by a trial: a server that had met EMFILE logged 'stopped' and lived on for minutes).
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});
