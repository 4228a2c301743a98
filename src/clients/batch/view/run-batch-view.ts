import tty from 'node:tty';
import { type Instance, render } from 'ink';
import React from 'react';
import { colorAllowed } from '../../tui/theme.ts';
import type { BatchSummary } from '../summary-schema.ts';
import type { BatchView } from './batch-keys.ts';
import { BatchTable } from './batch-table.ts';
import { openJobTui } from './open-job-tui.ts';
import { type SummarySource, type SummaryStore, summaryStore } from './summary-store.ts';

export type RunBatchViewOptions = {
  /** The batch's summaries as the runner writes them; their end is the batch's (summary-store.ts). */
  summaries: SummarySource;
  /**
   * Opens a running job's terminal UI on this terminal and resolves when the person leaves it
   * (a number is its exit code: one not 0 is told in the status line). The table is unmounted and
   * the terminal given back meanwhile. Default: `openJobTui(url)`, `ribosome tui URL` as a child.
   */
  openTui?: (jobId: string, url: string) => Promise<number | undefined>;
  /** q or Ctrl-C in the table, at each press: stop the batch as SIGINT would. */
  onQuit(): void;
  /**
   * Where to draw and read keys. Default: process.stdout, and a stream of this view's own on the
   * terminal (fd 0), closed while a job's TUI runs so that no key of it is read here. The caller
   * must not read process.stdin meanwhile: keys would go to whichever process reads first.
   */
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  stderr?: NodeJS.WriteStream;
  /** Environment to read NO_COLOR from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Aborted: the table goes as when the summaries end. */
  signal?: AbortSignal;
  /** Fixed terminal size (tests). */
  size?: { width: number; height: number };
};

// The alternate screen keeps the user's scrollback intact (as the TUI does: start-tui.ts).
const ENTER_ALT_SCREEN = '\u001b[?1049h\u001b[H';
const LEAVE_ALT_SCREEN = '\u001b[?1049l';

/** What the terminal shows: the table, a job's TUI in its place, or neither (before, between, after). */
type Phase =
  | { kind: 'table'; instance: Instance; stdin: NodeJS.ReadStream | undefined; own: boolean }
  | { kind: 'tui'; jobId: string }
  | { kind: 'idle' };

/**
 * The live table of a running batch on this terminal, until its summaries end (or `signal`):
 * resolves with the last summary. Enter on a running job unmounts the table, awaits `openTui`, and
 * mounts it again with the same job selected; an end of the batch meanwhile ends the view once the
 * TUI is left.
 */
export async function runBatchView(options: RunBatchViewOptions): Promise<BatchSummary | undefined> {
  const stdout = options.stdout ?? process.stdout;
  const fullScreen = stdout.isTTY === true;
  const color = colorAllowed(options.env ?? process.env);
  const openTui = options.openTui ?? ((_jobId: string, url: string) => openJobTui(url));
  const store = summaryStore(options.summaries);
  let phase: Phase = { kind: 'idle' };
  let view: BatchView = {};
  // The summaries ended (or the signal came): the batch is over, whatever the terminal shows.
  let batchOver = false;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });

  const mount = () => {
    const own = options.stdin === undefined && process.stdin.isTTY === true;
    // Ink reads keys from a stream of the view's own; it is closed at unmount (see `unmount`).
    const stdin = own ? new tty.ReadStream(0) : options.stdin;
    if (fullScreen) stdout.write(ENTER_ALT_SCREEN);
    const instance = render(
      React.createElement(LiveTable, {
        store,
        initialView: view,
        color,
        ...(options.size ? { size: options.size } : {}),
        onOpen: (jobId: string, url: string, at: BatchView) => void open(jobId, url, at),
        onStop: () => options.onQuit(),
      }),
      {
        stdout,
        ...(stdin ? { stdin } : {}),
        ...(options.stderr ? { stderr: options.stderr } : {}),
        // Ctrl-C is the table's key (it stops the batch), not Ink's to unmount.
        exitOnCtrlC: false,
        patchConsole: false,
        // As the TUI (start-tui.ts): whole frames, at most 20 a second.
        incrementalRendering: false,
        maxFps: 20,
      },
    );
    phase = { kind: 'table', instance, stdin, own };
  };

  const unmount = () => {
    if (phase.kind !== 'table') return;
    const { instance, stdin, own } = phase;
    phase = { kind: 'idle' };
    instance.unmount();
    instance.cleanup();
    // A stream left open on the terminal keeps reading it, and would take keys meant for the job's TUI.
    if (own) stdin?.destroy();
    if (fullScreen) stdout.write(LEAVE_ALT_SCREEN);
  };

  const end = () => {
    batchOver = true;
    // With a job's TUI open, the view ends when it is left.
    if (phase.kind === 'tui') return;
    unmount();
    finish();
  };

  async function open(jobId: string, url: string, at: BatchView): Promise<void> {
    if (phase.kind !== 'table') return;
    unmount();
    phase = { kind: 'tui', jobId };
    const { notice: _n, ...rest } = at;
    view = rest;
    try {
      const code = await openTui(jobId, url);
      if (typeof code === 'number' && code !== 0)
        view = {
          ...view,
          notice: {
            text: `the TUI of job ${jobId} ended with exit code ${code} (did the job just end?)`,
            tone: 'warn',
          },
        };
    } catch (error) {
      view = {
        ...view,
        notice: {
          text: `could not open the TUI of job ${jobId}: ${error instanceof Error ? error.message : String(error)}`,
          tone: 'bad',
        },
      };
    }
    phase = { kind: 'idle' };
    if (batchOver) finish();
    else mount();
  }

  const onAbort = () => store.close();
  if (options.signal?.aborted) store.close();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  let failure: { error: unknown } | undefined;
  store.ended.then(end, (error: unknown) => {
    failure = { error };
    end();
  });
  mount();
  try {
    await finished;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    store.close();
    unmount();
  }
  if (failure) throw failure.error;
  return store.get();
}

type LiveTableProps = {
  store: SummaryStore;
  initialView: BatchView;
  color: boolean;
  size?: { width: number; height: number };
  onOpen(jobId: string, url: string, view: BatchView): void;
  onStop(): void;
};

/** The table, drawn again at each new summary. */
function LiveTable({ store, ...rest }: LiveTableProps): React.ReactElement {
  const summary = React.useSyncExternalStore(store.subscribe, store.get);
  return React.createElement(BatchTable, { summary, ...rest });
}
