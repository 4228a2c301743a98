import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerEvent } from '../../../../src/core/protocol/index.ts';
import { openDatabase } from '../../../../src/execution/journal/database.ts';
import { SqliteJournal } from '../../../../src/execution/journal/sqlite-journal.ts';
import { executionLayout } from '../../../../src/execution/layout/layout.ts';
import { SqliteTransitionLog, StateStore } from '../../../../src/execution/state/state-store.ts';
import { ev } from '../../model/helpers/fake-client.ts';

/**
 * An execution directory written as a server writes one (its real SQLite database: the transitions
 * and the journal), where codon `one` of run `r1` hit claude-code's usage limit and the run waits.
 * `append` journals more events of the run, as the server would go on; `close` closes the database.
 */
export function usageWaitExecution(
  parent: string,
  wait: { resetsAt: string; until: string },
  /** When the events say they happened (their timestamps): now, unless given. */
  at: Date = new Date(),
): { dir: string; append(...events: ServerEvent[]): void; close(): void } {
  const dir = join(parent, 'exec');
  const layout = executionLayout(dir);
  mkdirSync(layout.internal, { recursive: true });
  const db = openDatabase(layout.database);
  const store = new StateStore(new SqliteTransitionLog(db));
  const journal = new SqliteJournal(db);
  const append = (...events: ServerEvent[]) =>
    journal.append(
      events.map((e) => ({
        id: e.id,
        runId: 'r1',
        type: e.type,
        timestamp: e.timestamp,
        json: JSON.stringify(e),
      })),
    );
  const startTime = new Date(at.getTime() - 60_000).toISOString();
  const stamp = at.toISOString();
  const failureReason = {
    type: 'usage-limit' as const,
    retriable: true,
    message: "You've hit your limit",
    resetsAt: wait.resetsAt,
  };
  store.apply('RunStarted', { runId: 'r1', startedAt: startTime, reason: 'start' });
  store.apply('CodonStarted', {
    runId: 'r1',
    codonId: 'one',
    codonName: 'one',
    codonIndex: 0,
    sessionId: 's-one',
    startTime,
  });
  store.apply('CodonTransitioned', {
    runId: 'r1',
    codonId: 'one',
    from: 'preparing',
    to: 'running',
    at: startTime,
  });
  store.apply('CodonTransitioned', {
    runId: 'r1',
    codonId: 'one',
    from: 'running',
    to: 'failed',
    at: stamp,
    duration: 1_500,
    failureReason,
  });
  append(
    ev(
      'codon.started',
      { codonId: 'one', codonName: 'one', sessionId: 's-one', startTime, agent: 'claude-code' },
      stamp,
    ),
    ev(
      'codon.completed',
      {
        codonId: 'one',
        success: false,
        cost: 0.01,
        duration: 1_500,
        exitStatus: { type: 'error', code: 1 },
        failureReason,
      },
      stamp,
    ),
    ev(
      'usageLimit.waiting',
      {
        codonId: 'one',
        agent: 'claude-code',
        resetsAt: wait.resetsAt,
        until: wait.until,
        waitMs: Math.max(0, Date.parse(wait.until) - at.getTime()),
        detail: "You've hit your limit · resets 3pm",
        message: 'one waits for the usage limit of claude-code to reset',
      },
      stamp,
    ),
    // Later events that are not about the wait do not end it.
    ev('info', { message: 'still here' }, stamp),
  );
  return {
    dir,
    append: (...events) => {
      append(...events);
    },
    close: () => journal.close(),
  };
}
