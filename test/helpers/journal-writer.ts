/**
 * Test child: `node journal-writer.ts <database>` publishes info events through an EventBus into a
 * SqliteJournal with background checkpoints made busy (every 5 ms, a RESTART past 64 pages), one
 * await at a time in bursts of 10, and prints `acked <id>` for each event once its publish resolved
 * (durable), and `checkpoints <passive>` now and then. It runs until it is killed.
 */
import { openDatabase } from '../../src/journal/database.ts';
import { EventBus } from '../../src/journal/event-bus.ts';
import { SqliteJournal } from '../../src/journal/sqlite-journal.ts';

const journal = new SqliteJournal(openDatabase(process.argv[2]!), undefined, {
  checkpoints: 'background',
  checkpointer: { intervalMs: 5, idleMs: 20, restartPages: 64 },
});
const bus = new EventBus({ journal, runId: 'writer' });
for (let burst = 0; ; burst++) {
  const events = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      bus.publish('info', { message: `${burst}.${i} ${'x'.repeat(200)}` }),
    ),
  );
  process.stdout.write(events.map((e) => `acked ${e.id}\n`).join(''));
  if (burst % 20 === 0) process.stdout.write(`checkpoints ${journal.checkpointStats()?.passive ?? 0}\n`);
}
