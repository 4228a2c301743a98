import { render } from 'ink-testing-library';
import React from 'react';
import type { ClientPort } from '../../../../src/clients/model/client-port.ts';
import { App } from '../../../../src/clients/tui/index.ts';

export const KEYS = {
  up: '\u001b[A',
  down: '\u001b[B',
  enter: '\r',
  escape: '\u001b',
  tab: '\t',
  backspace: '\u007f',
} as const;

export type Rendered = ReturnType<typeof render> & {
  frame(): string;
  /** Polls the frame until `predicate` holds; fails with the last frame after `timeoutMs`. */
  waitFor(predicate: string | ((frame: string) => boolean), timeoutMs?: number): Promise<string>;
  press(...keys: string[]): Promise<void>;
};

/** frame, waitFor and press for an ink-testing-library instance (every Ink render test's). */
export function frameTools(
  instance: ReturnType<typeof render>,
): Pick<Rendered, 'frame' | 'waitFor' | 'press'> {
  const frame = () => instance.lastFrame() ?? '';
  const waitFor = async (predicate: string | ((frame: string) => boolean), timeoutMs = 3_000) => {
    const test = typeof predicate === 'string' ? (f: string) => f.includes(predicate) : predicate;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = frame();
      if (test(current)) return current;
      if (Date.now() > deadline) {
        throw new Error(
          `timed out waiting for ${typeof predicate === 'string' ? JSON.stringify(predicate) : 'a frame'}; last frame:\n${current}`,
        );
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const press = async (...keys: string[]) => {
    // Ink handles each write synchronously; a lone ESC waits for setImmediate (it may start a sequence).
    for (const key of keys) {
      instance.stdin.write(key);
      await new Promise((r) => setImmediate(r));
    }
  };
  return { frame, waitFor, press };
}

export function renderApp(
  client: ClientPort,
  options: {
    readonly?: boolean;
    width?: number;
    height?: number;
    color?: boolean;
    quitStopsServer?: boolean;
    onQuit?: () => void;
    dashboard?: string;
    notes?: string[];
  } = {},
): Rendered {
  const instance = render(
    React.createElement(App, {
      client,
      readonly: options.readonly ?? false,
      size: { width: options.width ?? 100, height: options.height ?? 30 },
      color: options.color ?? true,
      ...(options.quitStopsServer ? { quitStopsServer: true } : {}),
      ...(options.onQuit ? { onQuit: options.onQuit } : {}),
      ...(options.dashboard ? { dashboard: options.dashboard } : {}),
      ...(options.notes ? { notes: options.notes } : {}),
    }),
  );
  return Object.assign(instance, frameTools(instance));
}

/** Polls `check` until it holds, failing after `timeoutMs` (effects run just after a frame is drawn). */
export async function eventually(what: string, check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
