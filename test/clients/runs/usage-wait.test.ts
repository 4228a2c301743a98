import { afterEach, describe, expect, it } from 'vitest';
import { consoleView } from '../../../src/clients/cli/console-view.ts';
import {
  formatRuns,
  journalEvents,
  openExecutionDb,
  readState,
  runRows,
} from '../../../src/clients/runs/index.ts';
import { usageWaitOf } from '../../../src/clients/runs/read-execution.ts';
import { parseServerEvent } from '../../../src/core/protocol/index.ts';
import { tempDir } from '../../helpers/server-process.ts';
import { ev } from '../model/helpers/fake-client.ts';
import { usageWaitExecution } from './helpers/usage-wait-execution.ts';

/** `ribosome runs` and `ribosome log` reading a real journal in which a run waits for a usage limit. */

const temps: Array<{ remove(): void }> = [];
const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
  for (const t of temps.splice(0)) t.remove();
});

// Local times: the clocks read the same in every time zone.
const local = (h: number, m = 0) => new Date(2026, 10, 30, h, m);
const NOW = local(12, 47);
const WAIT = { resetsAt: local(15).toISOString(), until: local(15, 1).toISOString() };

function execution() {
  const t = tempDir();
  temps.push(t);
  const exec = usageWaitExecution(t.path, WAIT, NOW);
  closers.push(exec.close);
  return exec;
}

/** The table as `ribosome runs` prints it, with the server alive and `now` given. */
function table(dir: string): { rows: ReturnType<typeof runRows>; text: string } {
  const db = openExecutionDb(dir);
  try {
    const state = readState(db);
    const wait = usageWaitOf(db, 'r1');
    const rows = runRows(state, {
      plan: undefined,
      serverAlive: true,
      lastEventAt: new Map(),
      now: NOW,
      usageWaits: new Map(wait ? [['r1', wait]] : []),
    });
    return { rows, text: formatRuns(rows, NOW.getTime()) };
  } finally {
    db.close();
  }
}

function logLines(dir: string): string[] {
  const db = openExecutionDb(dir);
  const describe = consoleView();
  try {
    return [...journalEvents(db)].flatMap((json) => {
      const parsed = parseServerEvent(JSON.parse(json));
      return parsed.ok ? (describe(parsed.event) ?? []) : [];
    });
  } finally {
    db.close();
  }
}

describe('ribosome runs during a usage-limit wait', () => {
  it('shows the running run as waiting for the usage limit, until when, and for which codon', () => {
    const { dir } = execution();
    const { rows, text } = table(dir);
    expect(rows[0]).toMatchObject({
      status: 'running',
      usageWait: { codonId: 'one', agent: 'claude-code', ...WAIT },
    });
    expect(
      text
        .split('\n')[1]
        ?.split(/\s{2,}/)
        .slice(0, 3),
    ).toEqual(['r1', 'waiting for usage limit until 15:01 (one)', '0/?']);
  });

  it('no longer once the wait ended, or a codon started, and never for a run no server holds', () => {
    const ended = execution();
    ended.append(ev('usageLimit.ended', { codonId: 'one', how: 'reset', message: 'the reset came' }));
    expect(table(ended.dir).rows[0]?.usageWait).toBeUndefined();
    expect(table(ended.dir).text).toMatch(/^r1\s+running \(failed: one\)/m);

    const started = execution();
    started.append(
      ev('codon.started', {
        codonId: 'one',
        codonName: 'one',
        sessionId: 's-2',
        startTime: NOW.toISOString(),
      }),
    );
    expect(table(started.dir).rows[0]?.usageWait).toBeUndefined();

    // A crashed run (no server holds it) waits for nothing.
    const { dir } = execution();
    const db = openExecutionDb(dir);
    try {
      const [row] = runRows(readState(db), {
        plan: undefined,
        serverAlive: false,
        lastEventAt: new Map(),
        now: NOW,
        usageWaits: new Map([['r1', { codonId: 'one', agent: 'claude-code', until: WAIT.until }]]),
      });
      expect(row?.status).toBe('crashed');
      expect(row?.usageWait).toBeUndefined();
    } finally {
      db.close();
    }
  });
});

describe('ribosome log of a usage-limit wait', () => {
  it('prints the failure with its reset time, the wait and its end as lines', () => {
    const exec = execution();
    exec.append(
      ev('usageLimit.ended', {
        codonId: 'one',
        how: 'command',
        command: 'codon.next',
        message: 'codon.next ended the wait',
      }),
    );
    // Said as of the event's time (the same day as the reset): its clocks need no date.
    const lines = logLines(exec.dir);
    expect(lines).toContain(
      "< one FAILED (1.5s, $0.0100): [usage limit (resets 15:00)] You've hit your limit",
    );
    expect(lines.filter((l) => l.startsWith('~ '))).toEqual([
      "~ one waits for the usage limit of claude-code to reset at 15:00, then starts again at 15:01: You've hit your limit · resets 3pm",
      '~ one: the usage-limit wait ended (codon.next took over)',
    ]);
  });
});
