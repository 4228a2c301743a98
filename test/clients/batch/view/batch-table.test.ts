import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, renderTable } from './helpers/render.ts';
import { BATCH_DIR, everyState, job, metrics, summaryOf } from './helpers/summaries.ts';

afterEach(() => cleanup());

/** ESC, BEL and every other C0 control but LF, C1 controls, bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** A frame with a row that starts with `mark`, the state and the job id. */
const row = (mark: string, state: string, id: string) => (frame: string) =>
  frame.split('\n').some((line) => line.startsWith(`${mark} ${state}`) && line.split(/\s+/).includes(id));

const manyJobs = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    i % 10 === 3
      ? job(i, 'running', { url: `ws://127.0.0.1:${41000 + i}`, startedAt: '2025-06-01T10:00:00.000Z' })
      : job(i, i < 20 ? 'passed' : 'pending', i < 20 ? { durationMs: 1_000 } : {}),
  );

describe('the batch table in a terminal', () => {
  it('draws the header, a row per job, the selected job in the status line and the keys', async () => {
    const app = renderTable(summaryOf(everyState(new Date()), { budget: { maxCostUsd: 10 } }), {
      width: 100,
    });
    const frame = await app.waitFor('job-5');
    const lines = frame.split('\n');
    expect(lines[0]).toBe(
      'Ribosome batch demo  running  1 running  1 pending  1 passed  1 failed  1 infra-failed  1 skipped',
    );
    expect(lines[1]).toMatch(/^jobs \[[█░]+\] 4\/6 done {3}\[[█░]+\] \$3\.81 of \$10\.00 budget \(38%\)$/);
    expect(lines[2]).toMatch(/^ {2}state\s+job\s+codons\s+cost\s+elapsed last event$/);
    expect(lines[3]).toMatch(/^› ✓ passed\s+job-0 /);
    expect(lines[4]).toMatch(/^ {2}▶ running\s+job-1 /);
    // The footer: the selected job, then the keys.
    expect(lines.at(-2)).toBe('✓ job-0');
    expect(lines.at(-1)).toBe('↑↓ move  enter/o open TUI  q stop batch  ? help');
    expect(lines).toHaveLength(20);
  });

  it('moves the selection with ↓/j/↑/k; Enter opens the TUI of a running job only, and says why not of others', async () => {
    const app = renderTable(summaryOf(everyState(new Date())));
    await app.waitFor('› ✓ passed');
    await app.press(KEYS.enter);
    const told = await app.waitFor('job job-0 passed and no longer runs, so it has no TUI');
    // Two lines: the table gave one up.
    expect(told.split('\n').slice(-3, -1)).toEqual([
      'job job-0 passed and no longer runs, so it has no TUI; read it with: ribosome log --execution',
      `  ${BATCH_DIR}/jobs/job-0`,
    ]);
    expect(told.split('\n')).toHaveLength(20);
    expect(app.opened).toEqual([]);

    await app.press(KEYS.down);
    await app.waitFor(row('›', '▶ running', 'job-1'));
    await app.press(KEYS.enter);
    expect(app.opened).toEqual([{ jobId: 'job-1', url: 'ws://127.0.0.1:40001' }]);

    await app.press('j', 'j');
    await app.waitFor(row('›', '· pending', 'job-3'));
    await app.press('o');
    await app.waitFor('job job-3 has not started: its TUI opens once it runs');
    await app.press('k', 'k', 'o');
    await app.waitFor(row('›', '▶ running', 'job-1'));
    expect(app.opened).toEqual([
      { jobId: 'job-1', url: 'ws://127.0.0.1:40001' },
      { jobId: 'job-1', url: 'ws://127.0.0.1:40001' },
    ]);
  });

  it('keeps the selection on its job when the next summary changes its state', async () => {
    const jobs = everyState(new Date());
    const app = renderTable(summaryOf(jobs));
    await app.press('j', 'j', 'j');
    await app.waitFor(row('›', '· pending', 'job-3'));
    const started = jobs.map((j) =>
      j.id === 'job-3'
        ? {
            ...j,
            state: 'running' as const,
            url: 'ws://127.0.0.1:40003',
            startedAt: '2025-06-01T10:09:00.000Z',
          }
        : j,
    );
    app.update(summaryOf(started));
    await app.waitFor(row('›', '▶ running', 'job-3'));
    await app.press(KEYS.enter);
    expect(app.opened).toEqual([{ jobId: 'job-3', url: 'ws://127.0.0.1:40003' }]);
  });

  it('scrolls through more jobs than rows, keeping the selection in view and saying what is above and below', async () => {
    const app = renderTable(summaryOf(manyJobs(50)), { height: 12 });
    // 12 lines: 5 of header and footer, 7 rows.
    let frame = await app.waitFor('job-6');
    expect(frame).not.toContain('job-7');
    expect(frame).toMatch(/↓43\n/);
    await app.press(...Array.from({ length: 9 }, () => 'j'));
    frame = await app.waitFor(row('›', '✓ passed', 'job-9'));
    // Scrolled by as little as needed: the selection on the last row.
    const rows = frame.split('\n').slice(3, 10);
    expect(rows[0]).toMatch(/job-3 /);
    expect(rows[6]).toMatch(/^› .*job-9 /);
    expect(frame).toMatch(/↑3 ↓40\n/);
    // Up again: the window stays until the selection reaches its top.
    await app.press('k', 'k');
    frame = await app.waitFor(row('›', '✓ passed', 'job-7'));
    expect(frame.split('\n')[3]).toMatch(/job-3 /);
    await app.press('\u001b[F'); // end
    frame = await app.waitFor(row('›', '· pending', 'job-49'));
    expect(frame.split('\n')[2]).toMatch(/ ↑43$/);
    await app.press(KEYS.enter);
    await app.waitFor('job job-49 has not started');
    await app.press('\u001b[H'); // home
    await app.waitFor(row('›', '✓ passed', 'job-0'));
    // Page down: 6 rows (a page less one).
    await app.press('\u001b[6~');
    await app.waitFor(row('›', '✓ passed', 'job-6'));
    expect(app.frame().split('\n')).toHaveLength(12);
  });

  it('shows a hostile id and event as inert stand-ins, with colour and without', async () => {
    const evil = 'x\u001b]0;pwned\u0007\u001b[2J\u202eevil';
    const jobs = [
      job(0, 'running', {
        id: evil,
        url: 'ws://127.0.0.1:1',
        reason: 'retry \u001b[31mred\u001b[0m',
        metrics: metrics({
          lastEvent: { type: 'x', at: '2025-06-01T10:09:00.000Z', text: 'Bash \u001b]52;c;cm0gLXJm\u0007' },
        }),
      }),
    ];
    const plain = renderTable(summaryOf(jobs, { name: 'n\u001b[2Jame' }), { width: 160 });
    const frame = await plain.waitFor('evil');
    expect(frame).not.toMatch(RAW);
    expect(frame).toContain('x␛]0;pwned␇␛[2J<U+202E>evil');
    expect(frame).toContain('Bash ␛]52;c;cm0gLXJm␇');
    expect(frame).toContain('Ribosome batch n␛[2Jame');
    // The status line names the selected job the same way; a colour sequence in a reason just goes.
    expect(frame.split('\n').at(-2)).toBe('▶ x␛]0;pwned␇␛[2J<U+202E>evil · retry red');
    cleanup();
    // With colour, the only escapes are Ink's own colour and style sequences.
    const coloured = renderTable(summaryOf(jobs), { width: 160, color: true });
    const withColour = await coloured.waitFor('evil');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping Ink's SGR sequences
    expect(withColour.replace(/\u001b\[[0-9;]*m/g, '')).not.toMatch(RAW);
  });

  it('q and Ctrl-C ask the batch to stop and say it is stopping; ? shows the help and esc closes it', async () => {
    const app = renderTable(summaryOf(everyState(new Date())));
    await app.press('?');
    const help = await app.waitFor('esc or ? close the help  q stop batch');
    expect(help).toContain('enter  open the selected job');
    expect(help).toContain('! infra');
    await app.press(KEYS.escape);
    await app.waitFor('› ✓ passed');
    await app.press('q');
    await app.waitFor('stopping the batch: no new job starts, running ones are stopped');
    await app.press('\u0003');
    expect(app.stops()).toBe(2);
  });

  it('waits for the first summary', async () => {
    const app = renderTable(undefined);
    await app.waitFor('waiting for the batch to write its summary…');
    app.update(summaryOf(everyState(new Date())));
    await app.waitFor('job-5');
  });

  it('fits 40 columns: every line within them', async () => {
    const app = renderTable(summaryOf(everyState(new Date()), { budget: { maxCostUsd: 5 } }), { width: 40 });
    const frame = await app.waitFor('job-5');
    for (const line of frame.split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(40);
    expect(frame).toContain('jobs 4/6 done   $3.81/$5.00 (76%)');
    expect(frame.split('\n').at(-1)).toBe('↑↓ move  q stop batch  ? help');
  });
});
