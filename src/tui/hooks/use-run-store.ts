import React from 'react';
import type { ServerEvent } from '../../protocol/index.ts';
import type { TuiClient } from '../client-port.ts';
import { reduceRun } from '../store/reduce.ts';
import { initialRunState, type RunState, type StoreAction } from '../store/run-state.ts';

// Events that are plumbing of the connection, not news about the run.
const PLUMBING = new Set<ServerEvent['type']>([
  'history.batch',
  'handshake.response',
  'server.ready',
  'pong',
]);

/** Live events are folded in batches: at most one render per this many ms, however fast they come. */
export const FLUSH_MS = 30;

/**
 * The run as the server tells it. On attach, and again after every reconnect, the whole journal is
 * fetched with history.sync and folded from scratch; live events that arrive meanwhile are held back
 * and folded after it, dropping those the history already had.
 */
export function useRunStore(client: TuiClient): [RunState, React.Dispatch<StoreAction>] {
  return useEventStore(client, reduceRun, initialRunState);
}

/** The same for any state folded from StoreActions (the web dashboard folds more than the TUI). */
export function useEventStore<S>(
  client: TuiClient,
  reducer: (state: S, action: StoreAction) => S,
  init: (url: string) => S,
): [S, React.Dispatch<StoreAction>] {
  const [state, dispatch] = React.useReducer(reducer, client.url, init);

  React.useEffect(() => {
    let live: ServerEvent[] = [];
    let held: ServerEvent[] | undefined = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let generation = 0;
    let disposed = false;

    const flush = () => {
      timer = undefined;
      if (live.length === 0) return;
      const events = live;
      live = [];
      dispatch({ kind: 'events', events });
    };
    const offEvent = client.onEvent((event) => {
      if (PLUMBING.has(event.type)) return;
      if (held) {
        held.push(event);
        return;
      }
      live.push(event);
      timer ??= setTimeout(flush, FLUSH_MS);
    });

    const sync = async () => {
      const mine = ++generation;
      // Events not yet folded join the held ones: the history may contain them too.
      const buffer: ServerEvent[] = live;
      live = [];
      if (timer) clearTimeout(timer);
      timer = undefined;
      held = buffer;
      try {
        const history = await client.syncHistory();
        if (disposed || mine !== generation) return;
        const known = new Set(history.map((e) => e.id));
        held = undefined;
        dispatch({ kind: 'history', events: [...history, ...buffer.filter((e) => !known.has(e.id))] });
      } catch (error) {
        if (disposed || mine !== generation) return;
        held = undefined;
        dispatch({ kind: 'syncFailed', message: (error as Error).message });
        dispatch({ kind: 'events', events: buffer });
      }
    };

    const offState = client.onStateChange((connection) => {
      dispatch({
        kind: 'connection',
        state: connection,
        at: new Date().toISOString(),
        ...(connection === 'open' ? readyOf(client) : {}),
      });
      if (connection === 'open') void sync();
    });
    dispatch({
      kind: 'connection',
      state: client.state,
      at: new Date().toISOString(),
      ...(client.state === 'open' ? readyOf(client) : {}),
    });
    if (client.state === 'open') void sync();

    return () => {
      disposed = true;
      if (timer) clearTimeout(timer);
      offEvent();
      offState();
    };
  }, [client]);

  return [state, dispatch];
}

function readyOf(client: TuiClient) {
  const { serverVersion, plan, proxy } = client.serverInfo;
  return { serverVersion, ready: { ...(plan ? { plan } : {}), ...(proxy ? { proxy } : {}) } };
}
