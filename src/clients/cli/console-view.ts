import { RibosomeClient } from '../../core/client/index.ts';
import { doneVerdict } from '../../core/protocol/idle-verdict.ts';
import {
  type EventData,
  type FailureReason,
  parseServerEvent,
  type ServerEvent,
} from '../../core/protocol/index.ts';
import { markEstimate } from '../../llm/estimated-cost.ts';
import { approvalWaitText } from '../model/approval-wait.ts';
import { displayLine } from '../model/display-text.ts';
import {
  fileChangeText,
  isEndedWithCodon,
  sandboxDeniedText,
  oneLine as shownOnOneLine,
} from '../model/format.ts';
import { messageLine } from '../model/store/messages.ts';
import { commentLine, quotePreview, reviewSentLine } from '../model/store/reviews.ts';
import { readTransition } from '../model/store/transition-data.ts';
import { failureKind, usageWaitEndedText, usageWaitRecord } from '../model/usage-wait.ts';
import { endedCallLine, waitingCalls } from './waiting-calls.ts';

/** On one line, control and bidirectional characters shown as stand-ins (what anyone wrote is printed here). */
const oneLine = (text: string, max = 160) => shownOnOneLine(text, max);

/** Said once, after the first estimated cost of the log: what the `~` means. */
const ESTIMATE_NOTE = ' estimated: its agent reports no cost';

/** How a codon ended when a client ended it: a transition says so before its codon.completed. */
type EndedBy = 'skipped' | 'stopped';

/**
 * Where a message added to a codon's prompt (codon.message `prompt`) came from: a redo's own text
 * (its sentinel's `sentinel.action` redo said it), or a message a crash carried over from the
 * interrupted run.
 */
type PromptSource = 'redo' | 'review' | 'crash';
const PROMPT_NOTES: Record<PromptSource, string> = {
  redo: "with the redo's prompt",
  review: 'the review, in its prompt',
  crash: 'in its prompt, carried over from the crashed run',
};

/**
 * One printable line for an event, or undefined for events a reader of the log does not need:
 * eventLine's, with whatever control or bidirectional character a name, a path or an id still holds
 * (a hostile server may send any) shown as an inert stand-in (display-text.ts).
 */
export function describeEvent(
  e: ServerEvent,
  endedBy?: EndedBy,
  promptSource?: PromptSource,
  estimateNote?: string,
): string | undefined {
  const line = eventLine(e, endedBy, promptSource, estimateNote);
  return line === undefined ? undefined : displayLine(line);
}

/**
 * The line describeEvent prints, as the event says it.
 * `endedBy`: for a codon.completed, that a client skipped or stopped the codon (consoleView knows);
 * `promptSource`: for a codon.message `prompt`, where it came from (consoleView knows);
 * `estimateNote`: for a codon.completed, said after its cost (the first estimated one says what `~` means).
 */
function eventLine(
  e: ServerEvent,
  endedBy?: EndedBy,
  promptSource?: PromptSource,
  estimateNote?: string,
): string | undefined {
  switch (e.type) {
    case 'codon.started':
      // The agent, as a server that says it names it: plans mixing agents read which one ran each codon.
      return `> ${e.data.codonId}: ${e.data.codonName}${e.data.agent ? ` (${oneLine(e.data.agent, 40)})` : ''}`;
    case 'assistant.action':
      if (e.data.action === 'tool_use') return `    tool  ${oneLine(e.data.content)}`;
      return e.data.action === 'thinking'
        ? `    think ${oneLine(e.data.content)}`
        : `    says  ${oneLine(e.data.content)}`;
    case 'tool.result':
      return `    ${e.data.isError ? 'fail ' : 'done '} ${e.data.toolName}: ${oneLine(e.data.result, 120)}`;
    case 'file.updated':
      return `    file  ${fileChangeText(e.data)}`;
    case 'codon.message': {
      if (e.data.delivery !== 'prompt') return `    hear  ${oneLine(messageLine(e.data, 'record'))}`;
      // messageLine's note for a prompt message names a redo; a crash's carry-over is said as such.
      const line = messageLine({ ...e.data, delivery: 'live' }, 'record');
      const note = promptSource ? PROMPT_NOTES[promptSource] : 'in its prompt';
      return `    hear  ${oneLine(line)} (${note})`;
    }
    case 'rollback.started':
      // Its own line: a rollback cut short (a crash) has no rollback.completed to say it happened.
      return `<< rolling back to ${e.data.toCodon} (${e.data.checkpointType}, checkpoint ${e.data.toCheckpoint.slice(0, 12)})...`;
    case 'rollback.completed':
      return `<< rolled back to ${e.data.codonId} (${e.data.checkpointType}, checkpoint ${e.data.checkpoint.slice(0, 12)}): run ${e.data.toRun}`;
    case 'codon.completed': {
      const cost = markEstimate(`$${e.data.cost.toFixed(4)}`, e.data.costEstimated);
      const took = `${(e.data.duration / 1000).toFixed(1)}s, ${cost}${estimateNote ?? ''}`;
      const reason = e.data.failureReason;
      if (e.data.success) return `< ${e.data.codonId} completed (${took})`;
      // A client's stop or skip: its message says who and why; the type (unknown) adds nothing.
      if (endedBy)
        return `< ${e.data.codonId} ${endedBy.toUpperCase()} (${took})${reason?.message ? `: ${oneLine(reason.message)}` : ''}`;
      const message = reason?.message ? ` ${oneLine(reason.message)}` : '';
      const kind = reason ? failureKind(reason, Date.parse(e.timestamp)) : 'unknown';
      return `< ${e.data.codonId} FAILED (${took}): [${kind}]${message}`;
    }
    case 'usageLimit.waiting': {
      // As it was said then (the event's time): a log read later has no countdown to show.
      const said = e.data.detail ? `: ${oneLine(e.data.detail)}` : '';
      return `~ ${usageWaitRecord(e.data, Date.parse(e.timestamp))}${said}`;
    }
    case 'usageLimit.ended':
      return `~ ${usageWaitEndedText(e.data)}`;
    // A person's turn: the run waits for them, then goes on as they said.
    case 'approval.waiting':
      return `? ${oneLine(e.data.message)}`;
    case 'approval.ended':
      return `? ${oneLine(e.data.message)}${e.data.note ? `: ${oneLine(e.data.note)}` : ''}`;
    case 'server.idle':
      return `= ${e.data.message}`;
    case 'error':
      // Whole (its hints are at the end), on one line: an agent's error text may span several.
      return `! [${e.data.severity ?? 'error'}] ${oneLine(e.data.message, Number.POSITIVE_INFINITY)}`;
    case 'info':
      return `  ${oneLine(e.data.message)}`;
    case 'review.comment':
      return `    ${commentLine(e.data, 'record')}`;
    case 'review.sent':
      return `    ${reviewSentLine(e.data, 'record')}`;
    case 'sentinel.output':
      return `    [${e.data.sentinelId}] ${oneLine(typeof e.data.content === 'string' ? e.data.content : JSON.stringify(e.data.content))}`;
    case 'sentinel.action': {
      const d = e.data;
      const text = d.text === undefined ? '' : `: ${oneLine(d.text)}`;
      return `    [${d.sentinelId}] ${d.dryRun ? 'would ' : ''}${d.action} ${d.codonId} (${oneLine(d.reason)})${text}`;
    }
    case 'sentinel.error':
      // An action that did not happen is worth a line; the other errors have their own events.
      return e.data.errorType === 'action-failed'
        ? `    [${e.data.sentinelId}] ${oneLine(e.data.message)}`
        : undefined;
    case 'verify.started':
      return `    gate  ${e.data.gate + 1}/${e.data.gates} $ ${oneLine(e.data.command)}`;
    case 'verify.completed':
      return `    gate  ${e.data.gate + 1} ${e.data.passed ? 'passed' : `failed (exit code ${e.data.exitCode ?? 'none'}${e.data.timedOut ? ', timed out' : ''})`} in ${(e.data.durationMs / 1000).toFixed(1)}s`;
    case 'outputs.copied':
      return `    copied ${e.data.files.length} output files to ${e.data.dir}`;
    case 'archive.completed':
      return `    archived ${e.data.archivedFiles.length} files to ${e.data.archiveDir}`;
    case 'sandbox.denied':
      return `    ${sandboxDeniedText(e.data)}`;
    default:
      return undefined;
  }
}

/**
 * The console view of a stream of events (`ribosome log`, `run` without a terminal UI, the demo):
 * describeEvent, remembering what the state transitions said of how each codon ended, so a codon a
 * client stopped or skipped reads STOPPED or SKIPPED, as the idle line and the terminal UI say, and
 * whether the `~` of an estimated cost was explained yet (once, on its first use).
 */
export function consoleView(): (e: ServerEvent) => string | undefined {
  const endedBy = new Map<string, EndedBy>();
  /** Whether a codon.completed said what `~` before its cost means. */
  let estimateSaid = false;
  /** The texts of redos announced (not dry runs) and not yet in their codon's prompt: codon, sentinel, text. */
  const redos = new Set<string>();
  /** The texts of reviews sent to a redo or the next codon and not yet in a prompt. */
  const reviews = new Set<string>();
  const redoKey = (codonId: string, sentinelId: string, text: string) =>
    JSON.stringify([codonId, sentinelId, text]);
  /** Each codon's comments no review has sent: a start of the codon leaves them on an earlier run. */
  const unsent = new Map<string, Set<string>>();
  const calls = waitingCalls();
  /** The lines of the codon's calls still waiting, which end with it, before `line`. */
  const endingCalls = (codonId: string, line: string | undefined) => {
    const ended = calls.end(codonId).map((c) => displayLine(endedCallLine(c)));
    return ended.length === 0 ? line : [...ended, ...(line === undefined ? [] : [line])].join('\n');
  };
  return (e) => {
    if (e.type === 'assistant.action') calls.call(e.data);
    if (e.type === 'tool.result') {
      const call = calls.result(e.data);
      // A made-up result of a call cut short is no failure: the call ended with the codon.
      if (isEndedWithCodon(e.data))
        return displayLine(endedCallLine(call ?? { content: `${e.data.toolName} (call not seen)` }));
      return describeEvent(e);
    }
    // A new attempt: the earlier one's calls still waiting can never get their results.
    if (e.type === 'codon.started') {
      const stale = unsent.get(e.data.codonId)?.size ?? 0;
      unsent.delete(e.data.codonId);
      const line = describeEvent(e);
      const earlier =
        stale === 0
          ? undefined
          : `    ${stale === 1 ? '1 comment' : `${stale} comments`} on ${e.data.codonId} not sent ${stale === 1 ? 'is' : 'are'} on an earlier run now (a review sends ${stale === 1 ? 'it' : 'them'} only by id)`;
      return endingCalls(e.data.codonId, earlier && line ? `${line}\n${earlier}` : (line ?? earlier));
    }
    if (e.type === 'review.comment') {
      const ids = unsent.get(e.data.codonId) ?? new Set<string>();
      unsent.set(e.data.codonId, ids.add(e.data.commentId));
      // Its quote's first lines under it: what the comment is about, as the diff showed it.
      const quote = quotePreview(e.data.hunk).map((l) => displayLine(`      │ ${l}`));
      return [describeEvent(e), ...quote].join('\n');
    }
    if (e.type === 'sentinel.action') {
      if (e.data.action === 'redo' && !e.data.dryRun && e.data.text !== undefined)
        redos.add(redoKey(e.data.codonId, e.data.sentinelId, e.data.text));
      return describeEvent(e);
    }
    // A review sent to a redo or the next codon: the codon.message prompt carrying it says so.
    if (e.type === 'review.sent') {
      for (const id of e.data.commentIds) unsent.get(e.data.codonId)?.delete(id);
      if (e.data.to !== 'message') reviews.add(e.data.text);
      return describeEvent(e);
    }
    if (e.type === 'codon.message' && e.data.delivery === 'prompt') {
      const { from } = e.data;
      const key = from.kind === 'sentinel' ? redoKey(e.data.codonId, from.sentinelId, e.data.text) : '';
      const source = redos.delete(key) ? 'redo' : reviews.delete(e.data.text) ? 'review' : 'crash';
      return describeEvent(e, undefined, source);
    }
    if (e.type === 'state.transition') {
      const t = readTransition(e.data);
      if (t?.type === 'CodonTransitioned') {
        if (t.data.to === 'skipped' || t.data.to === 'stopped') endedBy.set(t.data.codonId, t.data.to);
        else endedBy.delete(t.data.codonId);
      }
      return undefined;
    }
    if (e.type !== 'codon.completed') return describeEvent(e);
    const ended = endedBy.get(e.data.codonId);
    endedBy.delete(e.data.codonId);
    const note = e.data.costEstimated && !estimateSaid ? ESTIMATE_NOTE : undefined;
    if (note) estimateSaid = true;
    return endingCalls(e.data.codonId, describeEvent(e, ended, undefined, note));
  };
}

/**
 * What an unprinted console view says of an approval wait (pure): its start and end as they happen,
 * and a restarted server's held idle when no approval.waiting said that wait yet (`said`: its since).
 */
export function approvalNotice(e: ServerEvent, said: string | undefined): string | undefined {
  if (e.type === 'approval.waiting' || e.type === 'approval.ended') return e.data.message;
  if (
    e.type === 'server.idle' &&
    e.data.heldBy === 'approval' &&
    e.data.approval &&
    e.data.approval.since !== said
  )
    return approvalWaitText(e.data.approval);
  return undefined;
}

/**
 * Why a run that is over is not done, for the exit summary (pure): a budget that ran out (which one
 * and what it spent, when `budgetMessage` says it), a codon stopped, a checkpoint that could not be
 * written (`unwritten`, when it is the failed codon's), or a codon failed.
 * `budgetMessage`: the latest "plan budget exceeded: maxCostUsd 1.00, spent 1.0400" the run said.
 */
export function notDoneReason(
  idle: EventData<'server.idle'>,
  lastFailure: FailureReason | undefined,
  budgetMessage: string | undefined,
  unwritten?: UnwrittenCheckpoint,
): string {
  if (idle.heldBy === 'budget' || lastFailure?.type === 'budget') return budgetMessage ?? 'budget exceeded';
  if (idle.passedOver && idle.passedOver.length > 0) return 'a codon failed';
  if (idle.lastEnded?.status === 'stopped') return 'a codon was stopped';
  if (unwritten && idle.lastEnded?.codonId === unwritten.codonId)
    return `a checkpoint could not be written: ${unwritten.cause}`;
  return 'a codon failed';
}

/** A codon's checkpoint the server could not write (its git store full or failing), and git's words why. */
export type UnwrittenCheckpoint = { codonId: string; cause: string };

/**
 * The checkpoint an `error` says could not be written (CHECKPOINT_FAILED with its codon: "the
 * completed checkpoint of codon two could not be written: <cause>"), else undefined. Pure.
 */
export function unwrittenCheckpoint(error: EventData<'error'>): UnwrittenCheckpoint | undefined {
  if (error.code !== 'CHECKPOINT_FAILED' || error.codon === undefined) return undefined;
  const cause = /checkpoint of codon .* could not be written: (.+)$/s.exec(error.message)?.[1];
  return cause === undefined ? undefined : { codonId: error.codon, cause: oneLine(cause, 300) };
}

/**
 * A plain-text view of a run for terminals and logs: a readonly client of the protocol like any
 * other. Calls `onDone(ok, why)` when the plan has run (ok) or a codon failed, was stopped or a
 * budget ran out, and the server idles.
 */
export async function watchUntilDone(
  url: string,
  options: {
    print: boolean;
    onDone: (ok: boolean, why: string) => void;
    write?: (line: string) => void;
    token?: string | undefined;
    /**
     * Unprinted (headless), what still deserves a line as it happens: a usage-limit wait's start and
     * end (hours with nothing else said, docs/unattended.md#usage-limits), an approval wait's
     * (docs/review.md#approval-gates; a restarted server's says so in its held idle).
     */
    notice?: (line: string) => void;
  },
): Promise<void> {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const client = await RibosomeClient.connect(url, {
    mode: 'readonly',
    sendPreviousEvents: true,
    keepEvents: 0,
    ...(options.token ? { token: options.token } : {}),
  });
  let lastFailure: FailureReason | undefined;
  let lastFailed = false;
  let budgetMessage: string | undefined;
  let unwritten: UnwrittenCheckpoint | undefined;
  /** A usage-limit wait in progress: the codon that failed starts again, so the run is not over. */
  let waiting = false;
  /** The approval wait said last (its `since`): a restarted server's held idle repeats it. */
  let approvalSaid: string | undefined;
  let unsaidWait: { since: string; codonId: string; codonName: string } | undefined;
  let done = false;
  const describe = consoleView();
  let live = false;
  const handle = (e: ServerEvent) => {
    if (options.print) {
      const line = describe(e);
      if (line) write(line);
    } else if (live && (e.type === 'usageLimit.waiting' || e.type === 'usageLimit.ended'))
      options.notice?.(e.data.message);
    else if (live) {
      const said = approvalNotice(e, approvalSaid);
      if (said) options.notice?.(said);
      if (e.type === 'approval.waiting') approvalSaid = e.data.since;
      if (e.type === 'server.idle' && e.data.approval) approvalSaid = e.data.approval.since;
    }
    // A wait the history shows begun and not ended: said once the history is read (a restarted server's).
    if (!live && e.type === 'approval.waiting') unsaidWait = e.data;
    if (!live && (e.type === 'approval.ended' || e.type === 'codon.started')) unsaidWait = undefined;
    if (!live && e.type === 'server.idle')
      unsaidWait = e.data.heldBy === 'approval' ? e.data.approval : undefined;
    if (e.type === 'codon.started' && unwritten?.codonId === e.data.codonId) unwritten = undefined;
    if (e.type === 'usageLimit.waiting') waiting = true;
    if (e.type === 'usageLimit.ended' || e.type === 'codon.started') waiting = false;
    if (e.type === 'error') unwritten = unwrittenCheckpoint(e.data) ?? unwritten;
    if (e.type === 'codon.completed') {
      lastFailed = !e.data.success;
      lastFailure = e.data.failureReason;
      if (lastFailure?.type === 'budget' && lastFailure.message) budgetMessage = lastFailure.message;
    }
    // A budget that ran out between codons says so in a warning ("...; codons that count in it are refused").
    if (e.type === 'error' && e.data.code === 'BUDGET_EXCEEDED' && e.data.severity === 'warning')
      budgetMessage = e.data.message.split('; ')[0];
    if (e.type === 'server.idle' && !done && !waiting) {
      const verdict = doneVerdict(e.data, lastFailed);
      if (verdict !== undefined) {
        done = true;
        options.onDone(
          verdict,
          verdict ? 'the plan has run' : notDoneReason(e.data, lastFailure, budgetMessage, unwritten),
        );
      }
    }
  };
  for (const raw of client.handshake.eventHistory) {
    const parsed = parseServerEvent(raw);
    if (parsed.ok) handle(parsed.event);
  }
  live = true;
  if (!options.print && unsaidWait) {
    options.notice?.(approvalWaitText(unsaidWait));
    approvalSaid = unsaidWait.since;
  }
  client.onEvent(handle);
}
