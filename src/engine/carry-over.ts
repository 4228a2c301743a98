import type { MessageSender } from '../core/protocol/index.ts';
import type { Journal } from '../execution/journal/journal.ts';

/**
 * What a crash must not lose (docs/steering.md): the texts an agent heard (or was
 * to hear) that no agent acted on, found in the journal, so the codon's next run gets them in its
 * prompt. Pure over the events; `readCarryWindow` is the shell that reads them.
 */

export type CarriedMessage = { text: string; from: MessageSender };

/** The journaled events the carry-over reads, in journal order. */
export type CarryEvent = { type: string; data: unknown };

export const CARRY_TYPES: readonly string[] = [
  'codon.started',
  'codon.completed',
  'codon.message',
  'sentinel.action',
  'sentinel.error',
  'review.sent',
  'error',
];

type Running = { codonId: string; heard: CarriedMessage[]; crashed: boolean };
type Redo = { codonId: string; from: MessageSender; text: string | undefined };

const sameSender = (a: MessageSender, b: MessageSender) =>
  a.kind === 'client'
    ? b.kind === 'client' && a.clientId === b.clientId
    : b.kind === 'sentinel' && a.sentinelId === b.sentinelId;

const record = (data: unknown): Record<string, unknown> =>
  typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function senderOf(value: unknown): MessageSender | undefined {
  const from = record(value);
  if (from.kind === 'client' && typeof from.clientId === 'string')
    return { kind: 'client', clientId: from.clientId };
  if (from.kind === 'sentinel' && typeof from.sentinelId === 'string')
    return { kind: 'sentinel', sentinelId: from.sentinelId };
  return undefined;
}

/**
 * The texts each codon's next run carries, by codon id (only codons with some), in the order they
 * were journaled:
 * - a codon whose agent a crash ended (no codon.completed, or the one a restarted server journaled
 *   for it after RUN_CRASHED): every codon.message of that run, the prompt's own included (the
 *   agent that heard them is gone);
 * - a redo taken (sentinel.action redo, not a dry run) whose codon has not started again since, and
 *   that did not fail (no sentinel.error action-failed of its sentinel after it): its text, from the
 *   sentinel; what the agent heard before it is dropped, as a redo that ran would have dropped it; a
 *   review sent to `redo` (review.sent) the same, its text from the client that sent it;
 * - prompt messages journaled for a start that never came (codon.message `prompt` with no
 *   codon.started after it).
 * A codon.started hands the codon its carried texts; a codon.completed of a run no crash ended
 * closes what its agent heard.
 */
export function carryOver(events: Iterable<CarryEvent>): Map<string, CarriedMessage[]> {
  const pending = new Map<string, CarriedMessage[]>();
  const add = (codonId: string, messages: readonly CarriedMessage[]) => {
    if (messages.length > 0) pending.set(codonId, [...(pending.get(codonId) ?? []), ...messages]);
  };
  let running: Running | undefined;
  let redo: Redo | undefined;
  for (const event of events) {
    const data = record(event.data);
    const codonId = str(data.codonId) ?? str(data.codon);
    if (codonId === undefined) continue;
    switch (event.type) {
      case 'codon.message': {
        const text = str(data.text);
        const from = senderOf(data.from);
        if (text === undefined || !from) break;
        if (data.delivery === 'prompt') {
          // A redo's own text, journaled for its new run: it is carried as such from now on.
          if (redo?.codonId === codonId && sameSender(from, redo.from) && text === redo.text)
            redo = undefined;
          add(codonId, [{ text, from }]);
        } else if (running?.codonId === codonId) running.heard.push({ text, from });
        break;
      }
      case 'codon.started':
        running = { codonId, heard: pending.get(codonId) ?? [], crashed: false };
        pending.delete(codonId);
        if (redo?.codonId === codonId) redo = undefined;
        break;
      case 'sentinel.action': {
        const sentinelId = str(data.sentinelId);
        if (data.action !== 'redo' || data.dryRun !== false || sentinelId === undefined) break;
        redo = { codonId, from: { kind: 'sentinel', sentinelId }, text: str(data.text) };
        if (running?.codonId === codonId) running.heard = [];
        break;
      }
      case 'review.sent': {
        const by = senderOf(data.by);
        if (data.to !== 'redo' || !by) break;
        redo = { codonId, from: by, text: str(data.text) };
        if (running?.codonId === codonId) running.heard = [];
        break;
      }
      case 'sentinel.error':
        if (
          data.errorType === 'action-failed' &&
          redo?.codonId === codonId &&
          redo.from.kind === 'sentinel' &&
          redo.from.sentinelId === data.sentinelId
        )
          redo = undefined;
        break;
      case 'error':
        if (data.code === 'RUN_CRASHED' && running?.codonId === codonId) running.crashed = true;
        break;
      case 'codon.completed':
        if (running?.codonId !== codonId) break;
        if (running.crashed) add(codonId, running.heard);
        running = undefined;
        break;
    }
  }
  // A run the crash interrupted, not yet marked so: what its agent heard comes first.
  if (running) pending.set(running.codonId, [...running.heard, ...(pending.get(running.codonId) ?? [])]);
  if (redo?.text !== undefined) add(redo.codonId, [{ text: redo.text, from: redo.from }]);
  for (const [codonId, messages] of pending) if (messages.length === 0) pending.delete(codonId);
  return pending;
}

/**
 * The journal's events the carry-over needs: from after the codon.completed that precedes the newest
 * codon.started (prompt messages are journaled just before their codon.started) to the end, over
 * runs (a redo's rollback begins a new run before its codon starts again). Only CARRY_TYPES are parsed.
 */
export function* readCarryWindow(journal: Journal): Generator<CarryEvent> {
  const started = journal.lastOf(['codon.started']);
  // No codon ever started: nothing was heard, and no redo taken.
  if (!started) return;
  const from = journal.lastOf(['codon.completed'], started.seq)?.seq ?? 0;
  const limits = { maxEvents: 1_000, maxBytes: 8 * 1024 * 1024 };
  let after = from;
  for (;;) {
    const rows = journal.readAfter(after, limits);
    if (rows.length === 0) return;
    for (const row of rows) {
      if (!CARRY_TYPES.includes(row.type)) continue;
      const parsed = JSON.parse(row.json) as { type?: string; data?: unknown };
      yield { type: row.type, data: parsed.data };
    }
    after = rows.at(-1)?.seq ?? after;
  }
}

/** "2 messages sent to codon a's agent", "a redo's text": what a warning says carries over. */
export function describeCarried(codonId: string, messages: readonly CarriedMessage[]): string {
  const n = messages.length;
  return `${n} message${n === 1 ? '' : 's'} sent to codon ${codonId}'s agent ${n === 1 ? 'carries' : 'carry'} over to its next run (in its prompt)`;
}
