import React from 'react';
import type { ClientPort } from '../model/client-port.ts';
import type { RunState } from '../model/store/run-state.ts';

/**
 * Asks for checkpoint.list once the history is in and again whenever the run changes (a restart, a
 * rollback): the answer carries the run's branch and checkpoints, which no other event gives.
 * Readonly clients may send it too. A refused or unsent request only leaves the pane as it was.
 */
export function useCheckpointRefresh(
  client: ClientPort,
  connection: RunState['connection'],
  runId: string | undefined,
): void {
  const ready = connection.state === 'open' && !connection.syncing;
  React.useEffect(() => {
    if (!ready) return;
    try {
      client.send('checkpoint.list', runId ? { runId } : {});
    } catch {
      // Not connected after all: the next reconnect asks again.
    }
  }, [client, ready, runId]);
}
