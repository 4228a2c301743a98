import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { simplePlan, stuckTurns, writePlanAndScript, writeTurns } from '../../../helpers/plans.ts';
import { killAll, ROOT, type ServerProcess, startServer } from '../../../helpers/server-process.ts';
import { hasTmux, tmuxTestFile } from '../../../helpers/tmux.ts';
import { everyState, summaryOf } from './helpers/summaries.ts';

/**
 * The batch table on a real terminal (tmux), with a real job: `ribosome run` serving a plan whose
 * second codon is stuck. Enter opens the job's TUI (`ribosome tui`, a child on the same terminal);
 * its keys all reach it, its q brings the table back, and the table's q stops the batch.
 */

const SESSION = 'batch';
const { tmux, temp, track } = tmuxTestFile('ribosome-batch-table');
let server: ServerProcess | undefined;
afterAll(() => {
  server?.kill('SIGKILL');
  killAll();
});

const capture = () => tmux('capture-pane', '-p', '-t', SESSION);
async function waitForPane(
  what: string,
  test: (pane: string) => boolean,
  timeoutMs = 20_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pane = capture();
    if (test(pane)) return pane;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the pane shows:\n${pane}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const keys = (...k: string[]) => tmux('send-keys', '-t', SESSION, ...k);

describe.skipIf(!hasTmux)('the batch table in a terminal', () => {
  it("opens a running job's TUI in its place, comes back on the TUI's q, and stops the batch on its own q", async () => {
    const marker = 5_000 + Math.floor(Math.random() * 1_000);
    const files = writePlanAndScript(
      temp.path,
      simplePlan(['one', 'two']),
      `turns:\n${writeTurns('a.txt', 'alpha')}${stuckTurns(marker)}`,
    );
    server = await startServer(
      files.plan,
      join(temp.path, 'exec'),
      ['--scripted-provider', files.script],
      60_000,
    );
    if (server.child.pid !== undefined) track(server.child.pid);

    const jobs = everyState(new Date()).map((j) => (j.id === 'job-1' ? { ...j, url: server?.url } : j));
    const summaryFile = join(temp.path, 'summary.json');
    writeFileSync(summaryFile, JSON.stringify(summaryOf(jobs, { dir: join(temp.path, 'batch') })));
    const node = join(ROOT, 'node_modules/.bin/node');
    const programFile = join(import.meta.dirname, 'helpers/table-program.ts');
    const program = `NO_COLOR=1 '${node}' --disable-warning=ExperimentalWarning '${programFile}' '${summaryFile}'; echo "exited with $?"; sleep 600`;
    tmux('-f', '/dev/null', 'new-session', '-d', '-s', SESSION, '-x', '100', '-y', '24', 'sh', '-c', program);

    const table = await waitForPane(
      'the table',
      (p) => p.includes('Ribosome batch demo') && p.includes('job-5'),
    );
    expect(table).toMatch(/^› ✓ passed\s+job-0 /m);
    expect(table).toContain('↑↓ move  enter/o open TUI  q stop batch  ? help');

    // A job that no longer runs: nothing opens, the status line says what reads it.
    keys('Enter');
    await waitForPane('why job-0 cannot open', (p) => p.includes('job job-0 passed and no longer runs'));

    keys('Down');
    await waitForPane('job-1 selected', (p) => /^› ▶ running\s+job-1 /m.test(p));
    keys('Enter');
    const tui = await waitForPane(
      "job-1's TUI, its codon two stuck",
      (p) => p.includes('READ-WRITE') && /▶ two Codon two/.test(p),
    );
    expect(tui).not.toContain('Ribosome batch demo');
    // Every key typed goes to the TUI, none to the table behind it: its help opens and closes.
    keys('?');
    await waitForPane("the TUI's help", (p) => p.includes('Ribosome terminal UI · read-write'));
    keys('Escape');
    await waitForPane(
      "the TUI's panes again",
      (p) => /▶ two Codon two/.test(p) && !p.includes('Ribosome terminal UI ·'),
    );
    keys('q');

    const back = await waitForPane('the table again', (p) => p.includes('Ribosome batch demo'));
    expect(back).toMatch(/^› ▶ running\s+job-1 /m);
    keys('Down');
    await waitForPane('the table reads keys again', (p) => /^› ✗ failed\s+job-2 /m.test(p));

    keys('q');
    const ended = await waitForPane('the view to end', (p) => p.includes('exited with'));
    expect(ended).toContain('the view ended: batch demo stopped');
    expect(ended).toContain('exited with 0');
    // The TUI's q left the job running: its server still answers.
    expect(server.child.exitCode).toBeNull();
  }, 120_000);
});
