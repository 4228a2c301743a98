import type { RibosomeClient } from '../../core/client/index.ts';
import type { ServerEvent } from '../../core/protocol/index.ts';
import { usageWaitEndedText, usageWaitRecord } from '../model/usage-wait.ts';
import type { RunStatus } from './status.ts';

/** What the wait tool waits for: the server to idle, or a codon (the one named, else any) to end. */
export type Until = 'idle' | 'codon_end';

/**
 * How a follow ended: what it waited for came (or was there already), the run began to wait for a
 * usage limit (hours, maybe: no wait of a tool call outlasts it), time ran out, the server stopped.
 */
export type FollowEnd = 'idle' | 'codon-ended' | 'usage-limit' | 'already' | 'timeout' | 'server-stopped';

/**
 * Whether what a wait waits for is already so, from the run's status: the server idles (and, for a
 * codon's end, that codon is not running: it will not end while the server idles), or the run waits
 * for a usage limit. Pure.
 */
export function alreadyThere(until: Until, codon: string | undefined, status: RunStatus): boolean {
  // Nothing ends or idles until the usage limit resets.
  if (status.usageWait !== undefined) return true;
  if (status.idle === undefined) return false;
  return until === 'idle' || status.current === undefined || status.current !== codon;
}

/**
 * How an event ends a wait, or undefined: server.idle ends every wait (a codon that is not running
 * will not end while the server idles), so does usageLimit.waiting (nothing moves until the reset), a
 * codon.completed ends a wait for it (or for any). Pure.
 */
export function endedBy(until: Until, codon: string | undefined, event: ServerEvent): FollowEnd | undefined {
  if (event.type === 'server.idle') return 'idle';
  if (event.type === 'usageLimit.waiting') return 'usage-limit';
  if (until !== 'codon_end' || event.type !== 'codon.completed') return undefined;
  return codon === undefined || event.data.codonId === codon ? 'codon-ended' : undefined;
}

/**
 * Collects a connected client's events from now on, until `stop` names how they end, the server
 * closes the connection, or `timeoutMs` passes; `seen` is called with each event as it comes.
 * `events` holds every event collected so far (the caller may look before it starts waiting).
 */
export function collect(client: RibosomeClient, seen: (event: ServerEvent) => void = () => {}) {
  const events: ServerEvent[] = [];
  let wake: ((end: FollowEnd) => void) | undefined;
  let stop: ((event: ServerEvent) => FollowEnd | undefined) | undefined;
  let ended: FollowEnd | undefined;
  const finish = (end: FollowEnd) => {
    ended ??= end;
    wake?.(ended);
  };
  const offEvent = client.onEvent((event) => {
    events.push(event);
    seen(event);
    const end = stop?.(event);
    if (end) finish(end);
  });
  const offState = client.onStateChange((state) => {
    if (state === 'closed') finish('server-stopped');
  });
  return {
    events,
    /** Waits until `until` says an event ends it (the events collected before this call are checked first). */
    until(check: (event: ServerEvent) => FollowEnd | undefined, timeoutMs: number): Promise<FollowEnd> {
      stop = check;
      for (const event of events) ended ??= check(event);
      if (ended) return Promise.resolve(ended);
      return new Promise<FollowEnd>((resolve) => {
        const timer = setTimeout(() => finish('timeout'), timeoutMs);
        wake = (end) => {
          clearTimeout(timer);
          resolve(end);
        };
      });
    },
    close(): void {
      offEvent();
      offState();
    },
  };
}

/**
 * What a progress notification says of an event, or undefined for events it leaves out: a codon's
 * start and end (with the codons done, as the status counts them), a rollback, an approval wait's
 * start and end, the server idling. Pure.
 */
export function newsOf(
  event: ServerEvent,
  counts: { done: number; total: number | undefined },
): string | undefined {
  const done = `${counts.done}/${counts.total ?? '?'} codons done`;
  switch (event.type) {
    case 'codon.started':
      return `codon ${event.data.codonId} started (${done})`;
    case 'codon.completed':
      return `codon ${event.data.codonId} ${event.data.success ? 'completed' : 'ended without success'} (${done})`;
    case 'rollback.started':
      return `rolling back to ${event.data.toCodon} (${event.data.checkpointType})`;
    case 'rollback.progress':
      return `rollback step ${event.data.currentStep}/${event.data.totalSteps}: ${event.data.message}`;
    case 'rollback.completed':
      return `rolled back to ${event.data.codonId} (${event.data.checkpointType}): run ${event.data.toRun}`;
    case 'server.idle':
      return `idle: ${event.data.message}`;
    case 'usageLimit.waiting':
      return `codon ${usageWaitRecord(event.data, Date.parse(event.timestamp))}`;
    case 'usageLimit.ended':
      return usageWaitEndedText(event.data);
    case 'approval.waiting':
    case 'approval.ended':
      return event.data.message;
    default:
      return undefined;
  }
}
