import type { Runtime } from '../../../host/server/runtime.ts';
import { displayLine } from '../../model/display-text.ts';
import { watchUntilDone } from '../console-view.ts';
import type { StartNotes } from './announce.ts';
import { EXIT, storageNotice } from './exit.ts';
import type { RunRequest } from './parse-flags.ts';

/** How long the terminal UI stays on its final screen before `--exit-when-done` ends it. */
const TUI_LINGER_MS = 2000;

/** Who shows the run: the terminal UI, the console view (or, headless, only its verdict), nobody. */
type FrontEnd = 'tui' | 'console' | 'none';

/** The exit code as it stands while the server runs: decided by the UI, or by the plan being done. */
type Verdict = { code: number };

/**
 * Attaches the front end to a listening server and waits until it has stopped; resolves with the
 * exit code, after saying why it is not 0 (a storage fault, --exit-when-done stopped early) and,
 * for `--exit-when-done` without the console view, the summary line `summary` gives. The terminal
 * UI shows `notes` (printed before its screen hid them: the dashboard's address, what it resumes).
 */
export async function attachFrontEnd(
  runtime: Runtime<unknown>,
  request: RunRequest,
  summary: (code: number, reason: string | undefined) => string,
  notes: StartNotes = { lines: [] },
): Promise<number> {
  const frontEnd = chooseFrontEnd(request);
  const verdict: Verdict = { code: EXIT.ok };
  if (frontEnd === 'tui') await attachTui(runtime, request, verdict, notes);
  if (frontEnd === 'console') attachConsole(runtime, request, verdict);
  const stopped = await runtime.stopped;
  if (runtime.fault) process.stderr.write(`ribosome: ${storageNotice(runtime.fault, 'stopped')}\n`);
  if (stopped === EXIT.ok && request.exitWhenDone && verdict.code !== EXIT.ok) {
    process.stderr.write('ribosome: stopped before every codon was done (--exit-when-done exits 1)\n');
  }
  const exitCode = stopped === EXIT.ok ? verdict.code : stopped;
  if ((request.headless || frontEnd === 'tui') && request.exitWhenDone) {
    process.stderr.write(`${summary(exitCode, runtime.stopReason)}\n`);
  }
  return exitCode;
}

function chooseFrontEnd(request: RunRequest): FrontEnd {
  if (!request.headless && process.stdout.isTTY === true && process.stdin.isTTY === true) return 'tui';
  return !request.headless || request.exitWhenDone ? 'console' : 'none';
}

/** One command, server and UI: the terminal UI is a client like any other; quitting it stops the server. */
async function attachTui(
  runtime: Runtime<unknown>,
  request: RunRequest,
  verdict: Verdict,
  notes: StartNotes,
): Promise<void> {
  const { startTui } = await (await import('../../tui/load.ts')).loadTui();
  const token = request.access.token;
  // --exit-when-done: once the plan is done (or a codon failed), the UI ends by itself after a
  // moment showing the final screen, with the exit code the console view would give.
  const ended = new AbortController();
  let doneWhy: string | undefined;
  if (request.exitWhenDone) {
    verdict.code = EXIT.failure;
    void watchUntilDone(runtime.url, {
      print: false,
      token,
      onDone: (ok, why) => {
        verdict.code = ok ? EXIT.ok : EXIT.failure;
        doneWhy = why;
        setTimeout(() => ended.abort(), TUI_LINGER_MS).unref();
      },
    }).catch((error: unknown) =>
      process.stderr.write(`ribosome: watching the run: ${(error as Error).message}\n`),
    );
  }
  void startTui({
    url: runtime.url,
    quitStopsServer: true,
    token,
    signal: ended.signal,
    notes: notes.lines,
    ...(notes.dashboard ? { dashboard: notes.dashboard } : {}),
  }).then((uiCode) => {
    if (!request.exitWhenDone) verdict.code = uiCode;
    else if (uiCode !== EXIT.ok && doneWhy === undefined) verdict.code = uiCode;
    void runtime.stop(doneWhy ?? 'the terminal UI quit');
  });
  // The terminal went away (closed window, dropped SSH, killed tmux): like quitting the UI. Only
  // here: a headless server under nohup must keep ignoring SIGHUP.
  const terminalGone = () => void runtime.stop('the terminal closed');
  process.once('SIGHUP', terminalGone);
  process.stdout.once('error', terminalGone);
}

/**
 * The console view (headless: unprinted, for --exit-when-done alone). --exit-when-done promises 0
 * only for a plan that has run: stopped before that (a shutdown, a signal) it is 1, unless the plan
 * turns out done.
 */
function attachConsole(runtime: Runtime<unknown>, request: RunRequest, verdict: Verdict): void {
  if (request.exitWhenDone) verdict.code = EXIT.failure;
  void watchUntilDone(runtime.url, {
    print: !request.headless,
    token: request.access.token,
    notice: (line) => process.stderr.write(`ribosome: ${displayLine(line)}\n`),
    onDone: (ok, why) => {
      if (!request.exitWhenDone) return;
      verdict.code = ok ? EXIT.ok : EXIT.failure;
      void runtime.stop(why);
    },
  }).catch((error: unknown) => process.stderr.write(`ribosome: console view: ${(error as Error).message}\n`));
}
