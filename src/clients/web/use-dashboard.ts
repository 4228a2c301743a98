import React from 'react';
import { BrowserClient } from '../../core/client/browser.ts';
import { useEventStore } from '../hooks/use-run-store.ts';
import { type DashboardState, initialDashboard, reduceDashboard } from './model/dashboard.ts';

export type Connection =
  | { phase: 'connecting' }
  | { phase: 'failed'; message: string }
  | { phase: 'open'; client: BrowserClient };

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
      // keepEvents 0: the store folds what it needs; kept, the client's last 10 000 frames would be
      // the whole of a million-event history (a history.batch frame carries a thousand events).
      BrowserClient.connect(url, {
        mode: readonly ? 'readonly' : 'readandwrite',
        reconnect: true,
        keepEvents: 0,
        ticket: () => ticket(url),
      }).then(
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
