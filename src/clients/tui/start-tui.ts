import { render } from 'ink';
import React from 'react';
import { RefusedUpgradeError, RibosomeClient } from '../../core/client/index.ts';
import type { ClientPort } from '../model/client-port.ts';
import { App } from './components/app.ts';
import { colorAllowed } from './theme.ts';
import { openTrace } from './trace.ts';

export type StartTuiOptions = {
  /** The server's WebSocket address, e.g. ws://127.0.0.1:4711. */
  url: string;
  /** Hide every control and handshake as `readonly`. Default false. */
  readonly?: boolean;
  /** Streams to draw on and read keys from; default the process's. */
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  stderr?: NodeJS.WriteStream;
  /** Environment to read NO_COLOR from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Quitting the UI stops the server too (`ribosome run`): the help says so. Default false. */
  quitStopsServer?: boolean;
  /** Bound on connecting and handshaking, in ms. Default 10000. */
  connectTimeoutMs?: number;
  /** The server's access token, when it needs one. */
  token?: string | undefined;
  /** Aborted: the UI ends as after q (`ribosome run --exit-when-done` once the plan is done). */
  signal?: AbortSignal;
  /** The dashboard's address as `ribosome run --web` printed it (before the UI's screen hid it). */
  dashboard?: string;
  /** What the starting command said before the UI's screen hid it (what it resumes): shown again. */
  notes?: readonly string[];
};

export const TUI_EXIT = { ok: 0, cannotConnect: 1 } as const;

// The alternate screen keeps the user's scrollback intact and gives the UI a clean page.
const ENTER_ALT_SCREEN = '\u001b[?1049h\u001b[H';
const LEAVE_ALT_SCREEN = '\u001b[?1049l';

/**
 * Attaches the terminal UI to a running server and resolves with an exit code once the user quits
 * (q or Ctrl+C). The connection reconnects by itself; the server keeps running after the UI quits.
 */
export async function startTui(options: StartTuiOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const readonly = options.readonly ?? false;
  let client: RibosomeClient;
  try {
    client = await RibosomeClient.connect(options.url, {
      mode: readonly ? 'readonly' : 'readandwrite',
      reconnect: true,
      keepEvents: 0,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      ...(options.token ? { token: options.token } : {}),
    });
  } catch (error) {
    // A server that answered with a status is there: it refused (full, or an Origin it does not allow).
    const hint = error instanceof RefusedUpgradeError ? '' : ' Is `ribosome run` serving there?';
    stderr.write(`ribosome tui: could not attach to ${options.url}: ${(error as Error).message}.${hint}\n`);
    return TUI_EXIT.cannotConnect;
  }
  return runApp(client, { ...options, stdout, readonly });
}

/** Draws the UI for a connected client until the user quits; closes the client then. */
export async function runApp(
  client: ClientPort,
  options: Omit<StartTuiOptions, 'url'> & { stdout: NodeJS.WriteStream; readonly: boolean },
): Promise<number> {
  const { stdout } = options;
  const fullScreen = stdout.isTTY === true;
  if (fullScreen) stdout.write(ENTER_ALT_SCREEN);
  const trace = openTrace((options.env ?? process.env).RIBOSOME_TUI_TRACE);
  const unwatch = trace?.watch(stdout);
  const instance = render(
    React.createElement(App, {
      client,
      ...(trace ? { onRendering: trace.rendering } : {}),
      readonly: options.readonly,
      quitStopsServer: options.quitStopsServer === true,
      color: colorAllowed(options.env ?? process.env),
      ...(options.dashboard ? { dashboard: options.dashboard } : {}),
      ...(options.notes?.length ? { notes: options.notes } : {}),
    }),
    {
      stdout,
      ...(options.stdin ? { stdin: options.stdin } : {}),
      ...(options.stderr ? { stderr: options.stderr } : {}),
      exitOnCtrlC: true,
      patchConsole: false,
      // Ink 6.8's incremental mode draws one row too low once a frame ends with a newline (any
      // frame shorter than the terminal); whole frames go out inside synchronized-output markers
      // instead, which terminals show at once, without flicker.
      incrementalRendering: false,
      // A frame costs the whole screen (Ink builds every cell of it, a megabyte of objects at
      // 160x48): 20 a second shows a burst of thousands of messages a second as it comes.
      maxFps: 20,
      ...(trace ? { onRender: trace.drawn } : {}),
    },
  );
  // A terminal closed or a kill ends the UI like q does, so the screen is given back.
  const stop = () => instance.unmount();
  const signals = ['SIGTERM', 'SIGHUP'] as const;
  for (const signal of signals) process.once(signal, stop);
  if (options.signal?.aborted) stop();
  else options.signal?.addEventListener('abort', stop, { once: true });
  try {
    await instance.waitUntilExit();
  } finally {
    for (const signal of signals) process.off(signal, stop);
    options.signal?.removeEventListener('abort', stop);
    instance.cleanup();
    unwatch?.();
    trace?.close();
    if (fullScreen) stdout.write(LEAVE_ALT_SCREEN);
    await client.close();
  }
  return TUI_EXIT.ok;
}
