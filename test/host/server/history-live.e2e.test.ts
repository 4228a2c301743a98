import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import { isJournaled, type ServerEvent } from '../../../src/core/protocol/index.ts';
import { startInProcess } from '../../helpers/in-process.ts';
import { journalRows, killGroup, tempDir } from '../../helpers/server-process.ts';

const WRITER = join(import.meta.dirname, '../../helpers/journal-writer.ts');
const JOURNALED = 50_000;

/** A journal of at least `events` events written by the journal writer (then killed), in `dir`. */
async function writeJournal(dir: string, events: number): Promise<void> {
  mkdirSync(join(dir, '.ribosome'), { recursive: true });
  const writer: ChildProcess = spawn(process.execPath, [WRITER, join(dir, '.ribosome/ribosome.db')], {
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let acked = 0;
      writer.stdout!.on('data', (chunk: Buffer) => {
        for (let at = chunk.indexOf('acked '); at >= 0; at = chunk.indexOf('acked ', at + 6)) acked++;
        if (acked >= events) resolve();
      });
      writer.once('exit', (code) => reject(new Error(`journal writer exited with ${code}`)));
    });
  } finally {
    killGroup(writer, 'SIGKILL');
  }
}

/**
 * What a client that shows the run does (the TUI, the dashboard): live events that arrive while the
 * history streams are held back and come after it, those the history already had dropped by id.
 * `done` resolves with the ids of the journaled events it ends up with, once it has seen an `info`
 * event saying `end`.
 */
async function attach(url: string, first: Promise<unknown>[]) {
  const client = await RibosomeClient.connect(url, { mode: 'readonly', keepEvents: 0 });
  const held: ServerEvent[] = [];
  let syncing = true;
  const seen: string[] = [];
  let liveAfter = 0;
  let ended: () => void = () => undefined;
  const end = new Promise<void>((resolve) => {
    ended = resolve;
  });
  let firstLive: () => void = () => undefined;
  first.push(
    new Promise<void>((resolve) => {
      firstLive = resolve;
    }),
  );
  client.onEvent((e) => {
    if (!isJournaled(e.type)) return;
    firstLive();
    if (syncing) held.push(e);
    else {
      seen.push(e.id);
      liveAfter++;
    }
    if (e.type === 'info' && e.data.message === 'end') ended();
  });
  return {
    client,
    async sync() {
      const history: string[] = [];
      const count = await client.streamHistory((events) => {
        for (const e of events) history.push(e.id);
      });
      const inHistory = new Set(history);
      const live = held.filter((e) => !inHistory.has(e.id)).map((e) => e.id);
      syncing = false;
      seen.unshift(...history, ...live);
      return { count, history: history.length, heldLive: held.length, live: live.length };
    },
    async done() {
      await end;
      return { ids: seen, liveAfter };
    },
  };
}

describe('history.sync while live events flow (issue 16)', () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('two clients syncing at once each get every event once, in order: the history, then the live ones', async () => {
    const t = tempDir();
    cleanups.push(() => t.remove());
    await writeJournal(t.path, JOURNALED);
    // Small batches: many of them, each one interleaved with the live events.
    const s = await startInProcess({ limits: { historyBatchEvents: 200 } }, t.path);
    cleanups.push(() => s.cleanup());

    // Live events all along, a few per turn of the event loop, until told to stop.
    let publishing = true;
    let n = 0;
    const publisher = (async () => {
      while (publishing) {
        await Promise.all(Array.from({ length: 5 }, () => s.bus.publish('info', { message: `live ${n++}` })));
        await new Promise((r) => setImmediate(r));
      }
      await s.bus.publish('info', { message: 'end' });
    })();
    cleanups.push(async () => {
      publishing = false;
      await publisher;
    });

    const firstLive: Promise<unknown>[] = [];
    const clients = await Promise.all([attach(s.url, firstLive), attach(s.url, firstLive)]);
    for (const c of clients) cleanups.push(() => c.client.close());
    // Both have live events coming before they ask: the syncs run while they flow.
    await Promise.all(firstLive);
    const synced = await Promise.all(clients.map((c) => c.sync()));
    publishing = false;
    await publisher;
    const results = await Promise.all(clients.map((c) => c.done()));

    // The whole journal, as the server has it now, in its order.
    const journal = journalRows(t.path);
    const expected = journal.map((r) => JSON.parse(r.json).id as string);
    expect(journal.filter((r) => r.runId === 'writer').length).toBeGreaterThanOrEqual(JOURNALED);
    for (const [i, r] of results.entries()) {
      expect(new Set(r.ids).size).toBe(r.ids.length);
      expect(r.ids).toEqual(expected);
      // The history held every journaled event; some live ones came only live.
      expect(synced[i]!.history).toBeGreaterThanOrEqual(JOURNALED);
      expect(synced[i]!.live + r.liveAfter).toBeGreaterThan(0);
    }
    for (const c of clients) expect(c.client.invalidFrames).toEqual([]);
  }, 120_000);
});
