import React from 'react';
import { BrowserClient } from '../../core/client/browser.ts';
import { useEventStore } from '../hooks/use-run-store.ts';
import { type DashboardState, initialDashboard, reduceDashboard } from './model/dashboard.ts';

export type Connection =
  | { phase: 'connecting' }
  | { phase: 'failed'; message: string }
  | { phase: 'open'; client: BrowserClient };

/**
 * Connections main.tsx opened before the page's first render, by URL: the first server's handshake
 * overlaps the page's start (its sync begins that much sooner); useConnection takes it over.
 */
const early = new Map<string, Promise<BrowserClient>>();

function connect(url: string, readonly: boolean, ticket: (url: string) => Promise<string>) {
  // keepEvents 0: the store folds what it needs; kept, the client's last 10 000 frames would be
  // the whole of a million-event history (a history.batch frame carries a thousand events).
  return BrowserClient.connect(url, {
    mode: readonly ? 'readonly' : 'readandwrite',
    reconnect: true,
    keepEvents: 0,
    ticket: () => ticket(url),
  });
}

/** Starts connecting to `url` now, for the useConnection of that URL to take over. */
export function connectEarly(url: string, readonly: boolean, ticket: (url: string) => Promise<string>): void {
  const attempt = connect(url, readonly, ticket);
  attempt.catch(() => {}); // useConnection reports a failure (and tries again).
  early.set(url, attempt);
}

/** Connects to one server (reconnecting when it drops) and hands out the client once the handshake is done. */
export function useConnection(
  url: string,
  readonly: boolean,
  ticket: (url: string) => Promise<string>,
): Connection {
  const [connection, setConnection] = React.useState<Connection>({ phase: 'connecting' });
  React.useEffect(() => {
    let disposed = false;
    let client: BrowserClient | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const attempt = () => {
      const started = early.get(url);
      early.delete(url);
      (started ?? connect(url, readonly, ticket)).then(
        (c) => {
          if (disposed) return void c.close();
          client = c;
          setConnection({ phase: 'open', client: c });
        },
        (error: unknown) => {
          if (disposed) return;
          setConnection({ phase: 'failed', message: (error as Error).message });
          retry = setTimeout(attempt, 2_000);
        },
      );
    };
    attempt();
    return () => {
      disposed = true;
      if (retry) clearTimeout(retry);
      void client?.close();
    };
  }, [url, readonly, ticket]);
  return connection;
}

/** The server's run, folded from its history and live events (the store hook the TUI uses too, with the dashboard's reducer). */
export function useDashboard(
  client: BrowserClient,
): [DashboardState, React.Dispatch<import('../model/store/run-state.ts').StoreAction>] {
  return useEventStore(client, reduceDashboard, initialDashboard);
}
