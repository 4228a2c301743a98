import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { simplePlan, stuckTurns, writePlanAndScript, writeTurns } from '../../helpers/plans.ts';
import { BIN, killAll, type ServerProcess, startServer, tempDir } from '../../helpers/server-process.ts';
import { hasTmux, ownTmux } from '../../helpers/tmux.ts';
import { hasColour } from './helpers/colour.ts';

/**
 * The real program in a real terminal: `ribosome tui` in tmux against `ribosome run` serving a plan
 * whose second codon is stuck. Every wait polls the pane against a deadline.
 * TUI_SAVE_CAPTURES=1 writes the panes it sees to test/clients/tui/captures/.
 */

// A tmux server of our own (-L): nothing else's sessions are touched, and kill-server ends only ours.
const SESSION = 'tui';
const tmux = ownTmux('ribosome-tui');
const capture = (escapes = false) => tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', SESSION);

async function waitForPane(
  what: string,
  test: (pane: string) => boolean,
  timeoutMs = 45_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pane = capture();
    if (test(pane)) return pane;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the pane shows:\n${pane}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const CAPTURES = join(import.meta.dirname, 'captures');
function save(name: string, pane: string): void {
  if (process.env.TUI_SAVE_CAPTURES !== '1') return;
  mkdirSync(CAPTURES, { recursive: true });
  writeFileSync(join(CAPTURES, `${name}.txt`), `${pane.trimEnd()}\n`);
}

const temp = tempDir('ribosome-tui-e2e-');
let server: ServerProcess | undefined;
afterAll(() => {
  try {
    tmux('kill-server');
  } catch {
    // Never started, or already gone.
  }
  server?.kill('SIGKILL');
  killAll();
  temp.remove();
});

describe.skipIf(!hasTmux)('ribosome tui in a terminal', () => {
  it('fills in the codon list, skips the running codon, rolls back (or shows why not), quits', async () => {
    const marker = 4_000 + Math.floor(Math.random() * 1_000);
    const files = writePlanAndScript(
      temp.path,
      simplePlan(['one', 'two', 'three']),
      `turns:\n${writeTurns('a.txt', 'alpha')}${stuckTurns(marker)}${writeTurns('c.txt', 'gamma')}`,
    );
    // Generous bounds: other suites may load the machine; a wait ends as soon as its text shows.
    server = await startServer(
      files.plan,
      join(temp.path, 'exec'),
      ['--scripted-provider', files.script],
      60_000,
    );

    // The pane outlives the program, so its exit status can be read after q.
    // The environment is the test's own: under CI=true the UI must still draw every frame.
    const program = `NO_COLOR=1 '${BIN}' tui ${server.url}; echo "tui exited with $?"; sleep 600`;
    tmux('-f', '/dev/null', 'new-session', '-d', '-s', SESSION, '-x', '100', '-y', '30', 'sh', '-c', program);

    const running = await waitForPane(
      'codon two stuck in its Bash call',
      (p) =>
        /✓ one Codon one/.test(p) &&
        /▶ two Codon two/.test(p) &&
        p.includes(`Bash sleep ${marker}  … running`) &&
        !p.includes('branch unknown'), // asked for with checkpoint.list once the UI attached
    );
    expect(running).toContain('READ-WRITE');
    expect(running).toMatch(/run run-\S+/);
    save('01-running', running);
    // NO_COLOR: styles such as inverse and bold stay, colours go.
    expect(hasColour(capture(true))).toBe(false);

    tmux('send-keys', '-t', SESSION, 's');
    const skipped = await waitForPane(
      'two skipped, three done, the plan over',
      (p) => /↷ two Codon two/.test(p) && /✓ three Codon three/.test(p) && p.includes('plan done'),
    );
    expect(skipped).toContain('ℹ skipping codon two');
    expect(skipped).toContain('■ two skipped in');
    expect(skipped).toContain('= all 3 codons of plan "test" are done');
    save('02-skipped', skipped);

    tmux('send-keys', '-t', SESSION, 'b');
    await waitForPane(
      'the rollback picker',
      (p) => p.includes('Roll back to…') && p.includes('› the last successful codon'),
    );
    // Down twice: past "start of one" to "end of one", undoing codons two and three.
    tmux('send-keys', '-t', SESSION, 'Down');
    tmux('send-keys', '-t', SESSION, 'Down');
    await waitForPane('the end of one selected', (p) => p.includes('› end of one'));
    tmux('send-keys', '-t', SESSION, 'Enter');
    await waitForPane('the confirmation', (p) => p.includes('Roll back to end of one (completed)?'));
    tmux('send-keys', '-t', SESSION, 'y');
    const outcome = await waitForPane(
      'the rollback to finish or be refused',
      (p) => p.includes('Rollback to end of one (completed): completed') || /refused: [A-Z_]+/.test(p),
    );
    save('03-rollback', outcome);
    if (outcome.includes('refused')) {
      // Rollback is not in the engine yet: the server's answer must be plain to see, code and all.
      const code = /refused: ([A-Z_]+)/.exec(outcome)?.[1];
      expect(code).toBeDefined();
      expect(outcome).toContain(`operation ${code}:`); // the status line
      expect(outcome).toContain('→ read message; retry if suitable');
    } else {
      // The rollback's own lines: what it started from and to, then its steps.
      expect(outcome).toMatch(/started: three → one at [0-9a-f]{8}/);
      expect(outcome).toMatch(/1\/\d+ /);
      // The codons it undid are pending again (two is what codon.next starts), with no cost or time.
      expect(outcome).toMatch(/✓ one Codon one\s+\$0\.\d+\s+\S+│/);
      expect(outcome).toMatch(/[·▷] two Codon two\s+\$0\s*│/);
      expect(outcome).toMatch(/· three Codon three\s+\$0\s*│/);
      // The work tree is codon one's again: codon three's file is gone, codon one's stays.
      expect(existsSync(join(temp.path, 'exec/agentRoot/c.txt'))).toBe(false);
      expect(existsSync(join(temp.path, 'exec/agentRoot/a.txt'))).toBe(true);
    }

    // Scales down to 80x24 while running.
    tmux('resize-window', '-t', SESSION, '-x', '80', '-y', '24');
    const small = await waitForPane('the 80x24 layout', (p) => {
      const lines = p.trimEnd().split('\n');
      return (
        lines.length <= 24 &&
        lines.at(-1)?.includes('q quit') === true &&
        lines[0]?.startsWith('Ribosome') === true
      );
    });
    for (const line of small.split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(80);
    save('04-80x24', small);

    tmux('send-keys', '-t', SESSION, 'q');
    await waitForPane('the program to exit', (p) => p.includes('tui exited with 0'));
    // Quitting the UI leaves the server running.
    expect(server.child.exitCode).toBeNull();
  }, 240_000);
});
