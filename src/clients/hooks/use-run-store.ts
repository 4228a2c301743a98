import React from 'react';
import type { ServerEvent } from '../../core/protocol/index.ts';
import type { ClientPort } from '../model/client-port.ts';
import { reduceRun } from '../model/store/reduce.ts';
import { initialRunState, type RunState, type StoreAction } from '../model/store/run-state.ts';

// Events that are plumbing of the connection, not news about the run.
const PLUMBING = new Set<ServerEvent['type']>([
  'history.batch',
  'handshake.response',
  'server.ready',
  'pong',
]);

/**
 * Live events are folded in batches: at most one render per this many ms, however fast they come
 * (Ink draws at most 20 frames a second too: start-tui.ts).
 */
export const FLUSH_MS = 50;

/**
 * The run as the server tells it. On attach, and again after every reconnect, the whole journal is
 * streamed with history.sync and folded batch by batch as they arrive, outside React (never all of
 * it in memory: a batch is folded, then dropped; nothing renders per batch); the screen keeps what
 * it showed until the history is complete. Live events that arrive meanwhile are held back and
 * folded after it, dropping those the history already had.
 */
export function useRunStore(client: ClientPort): [RunState, React.Dispatch<StoreAction>] {
  return useEventStore(client, reduceRun, initialRunState);
}

/** The same for any state folded from StoreActions (the web dashboard folds more than the TUI). */
export function useEventStore<S>(
  client: ClientPort,
  reducer: (state: S, action: StoreAction) => S,
  init: (url: string) => S,
): [S, React.Dispatch<StoreAction>] {
  const [state, dispatch] = React.useReducer(reducer, client.url, init);
  // The state last rendered: a streaming history is folded on a copy of it, outside React.
  const latest = React.useRef(state);
  latest.current = state;

  React.useEffect(() => {
    let live: ServerEvent[] = [];
    // While a history streams: the live events held back, and their ids (to drop the history's copies).
    let held: { events: ServerEvent[]; ids: Set<string> } | undefined;
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
        held.events.push(event);
        held.ids.add(event.id);
        return;
      }
      live.push(event);
      timer ??= setTimeout(flush, FLUSH_MS);
    });

    const sync = async () => {
      const mine = ++generation;
      // Events not yet folded join the held ones: the history may contain them too.
      const hold = { events: live, ids: new Set(live.map((e) => e.id)) };
      live = [];
      if (timer) clearTimeout(timer);
      timer = undefined;
      held = hold;
      // Events of the history also held live (published between connecting and the sync).
      const twice = new Set<string>();
      const current = () => !disposed && mine === generation;
      const release = () => {
        held = undefined;
        return hold.events.filter((e) => !twice.has(e.id));
      };
      // Each batch is folded as it arrives, on a copy of the state: nothing renders until the end,
      // and no batch is kept once folded.
      let folded = reducer(latest.current, { kind: 'historyBegin' });
      try {
        await client.streamHistory(
          (events) => {
            if (!current()) return;
            // Usually none is held (a first sync): no look-up per event then.
            if (hold.ids.size > 0) for (const e of events) if (hold.ids.has(e.id)) twice.add(e.id);
            folded = reducer(folded, { kind: 'historyEvents', events });
          },
          { timeoutMs: 60_000 },
        );
        if (!current()) return;
        const rest = release();
        dispatch({ kind: 'historyEnd', folded });
        if (rest.length > 0) dispatch({ kind: 'events', events: rest });
      } catch (error) {
        if (!current()) return;
        const rest = release();
        dispatch({ kind: 'syncFailed', message: (error as Error).message });
        dispatch({ kind: 'events', events: rest });
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
  }, [client, reducer]);

  return [state, dispatch];
}

function readyOf(client: ClientPort) {
  const { serverVersion, plan, proxy } = client.serverInfo;
  const { clientId } = client;
  return {
    serverVersion,
    ready: { ...(plan ? { plan } : {}), ...(proxy ? { proxy } : {}) },
    ...(clientId ? { clientId } : {}),
  };
}
