/**
 * Test child: `node journal-writer.ts <database> [inline]` publishes info events through an EventBus
 * into a SqliteJournal, one await at a time in bursts of 10, and prints `acked <id>` for each event
 * once its publish resolved (durable). By default checkpoints run in the background and are made busy
 * (every 5 ms, a RESTART past 64 pages), printing `checkpoints <passive>` now and then; `inline`
 * checkpoints as the server does by default (SQLite's own, inside commits). It runs until it is
 * killed, or until a publish fails: then it prints `failed <message>` and exits 4.
 */
import { openDatabase } from '../../src/execution/journal/database.ts';
import { EventBus } from '../../src/execution/journal/event-bus.ts';
import { SqliteJournal } from '../../src/execution/journal/sqlite-journal.ts';

const inline = process.argv[3] === 'inline';
const journal = new SqliteJournal(
  openDatabase(process.argv[2]!),
  undefined,
  inline
    ? { checkpoints: 'inline' }
    : { checkpoints: 'background', checkpointer: { intervalMs: 5, idleMs: 20, restartPages: 64 } },
);
const bus = new EventBus({ journal, runId: 'writer' });
for (let burst = 0; ; burst++) {
  let events: Awaited<ReturnType<typeof bus.publish<'info'>>>[];
  try {
    events = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        bus.publish('info', { message: `${burst}.${i} ${'x'.repeat(200)}` }),
      ),
    );
  } catch (error) {
    process.stdout.write(`failed ${(error as Error).message}\n`);
    process.exit(4);
  }
  process.stdout.write(events.map((e) => `acked ${e.id}\n`).join(''));
  if (!inline && burst % 20 === 0)
    process.stdout.write(`checkpoints ${journal.checkpointStats()?.passive ?? 0}\n`);
}
