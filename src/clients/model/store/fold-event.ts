import type { ServerEvent } from '../../../core/protocol/index.ts';
import { oneLine, sandboxDeniedText } from '../format.ts';
import {
  assistantAction,
  codonCompletedLine,
  codonStartedLine,
  endWaitingCalls,
  fileUpdated,
  inActivityBatch,
  keepsActivity,
  note,
  sentinelActionFailed,
  sentinelActionLine,
  toolResult,
} from './activity.ts';
import { approvalEnded, approvalWaiting, endApprovalWait, knownApprovalWait } from './approval-wait.ts';
import { draftOf } from './batch-draft.ts';
import {
  applySnapshotCodons,
  codonCompleted,
  codonStarted,
  countAction,
  learnCodonsFromCheckpoints,
  markCostEstimated,
  noteAttempt,
} from './codons.ts';
import { answerCommand, commandLine } from './command-answers.ts';
import { addError, severityOf } from './errors.ts';
import { foldTransition } from './fold-transition.ts';
import { isOwnMessage, messageLine, messageSentLine } from './messages.ts';
import { reviewComment, reviewSent } from './reviews.ts';
import { isRollbackEvent, rollbackEvent, rollbackRefused } from './rollback.ts';
import type { RunState } from './run-state.ts';
import { sentinelError, sentinelLoaded, sentinelOutput, sentinelUnloaded } from './sentinels.ts';
import { totalTokens } from './totals.ts';
import { endUsageWait, snapshotUsageWait, usageLimitEnded, usageLimitWaiting } from './usage-wait.ts';

/** Server events folded into the run's state, one by one: what each event changes in what the UIs show. */
export function foldEvents(state: RunState, events: readonly ServerEvent[]): RunState {
  return inActivityBatch(state, (start) => {
    let next = start;
    for (const e of events) next = foldEvent(next, e);
    return next;
  });
}

export function foldEvent(state: RunState, e: ServerEvent): RunState {
  return answerCommand(foldEventOnly(state, e), e);
}

/** Events that change nothing but the activity list: nothing to do for a state that keeps none. */
const ACTIVITY_ONLY: ReadonlySet<ServerEvent['type']> = new Set<ServerEvent['type']>([
  'tool.result',
  'info',
  'incomplete.codon',
  'file.updated',
  'archive.completed',
  'archive.partial',
  'outputs.copied',
  'sentinel.action',
  'verify.started',
  'verify.completed',
  'sandbox.denied',
]);

function foldEventOnly(state: RunState, e: ServerEvent): RunState {
  // The web dashboard keeps its own activity (limit 0): its lines would be made only to be dropped.
  if (!keepsActivity(state)) {
    if (ACTIVITY_ONLY.has(e.type)) return state;
    if (e.type === 'assistant.action') return countAction(state, e.data);
  }
  // A rollback ends the run a wait was part of.
  if (isRollbackEvent(e))
    return rollbackEvent(e.type === 'rollback.started' ? endApprovalWait(endUsageWait(state)) : state, e);
  switch (e.type) {
    case 'codon.started': {
      const d = e.data;
      // Whatever started it (the reset, a command), a codon that starts ends a usage-limit or approval wait.
      const unheld = endApprovalWait(endUsageWait(state));
      const { idle: _idle, ...run } = unheld.run;
      // A new attempt: the earlier one's calls still waiting can never get their results.
      const ended = endWaitingCalls({ ...unheld, run }, d.codonId);
      const started = noteAttempt(codonStarted(ended, d, 'running', false), d);
      return {
        ...codonStartedLine(started, e),
        notice: {
          text: `running ${d.codonId}: ${d.codonName}${d.agent ? ` (${d.agent})` : ''}`,
          tone: 'accent',
        },
      };
    }
    case 'codon.completed': {
      const next = codonCompleted(endWaitingCalls(state, e.data.codonId), e.data);
      return codonCompletedLine(next, e);
    }
    case 'state.snapshot': {
      const d = e.data;
      const codons = d.currentCodon ? [...d.completedCodons, d.currentCodon] : d.completedCodons;
      const { budgets: _b, ...run } = state.run;
      const budgets = d.budgets
        ? {
            statuses: d.budgets,
            at: e.timestamp,
            totalCost: d.totalCost,
            outputTokens: totalTokens(state.run).output,
          }
        : undefined;
      const applied = applySnapshotCodons(state, codons);
      const usage = snapshotUsageWait(
        {
          ...applied,
          run: {
            ...run,
            totalCost: d.totalCost,
            totalCostEstimated: d.totalCostEstimated === true,
            workTime: d.totalTime,
            isRollingBack: d.isRollingBack,
            ...(budgets ? { budgets } : {}),
          },
        },
        d.usageLimitWait,
      );
      return knownApprovalWait(usage, d.approvalWait);
    }
    case 'state.transition':
      return foldTransition(state, e);
    case 'token.usage': {
      const d = e.data;
      const tokens = {
        input: d.inputTokens,
        output: d.outputTokens,
        cacheCreation: d.cacheCreationTokens,
        cacheRead: d.cacheReadTokens,
      };
      // In a batch: its own copy of the run and the record, changed in place by its later token.usage.
      const run = draftOf(state.run);
      const codonTokens = draftOf(run.codonTokens);
      codonTokens[d.codonId] = tokens;
      run.codonTokens = codonTokens;
      const next = run === state.run ? state : { ...state, run };
      return d.costEstimated ? markCostEstimated(next, d.codonId) : next;
    }
    case 'server.idle': {
      // Held by approval, the idle says which codon waits (a restarted server's first word of it).
      const held = knownApprovalWait(state, e.data.heldBy === 'approval' ? e.data.approval : undefined);
      const tone = e.data.reason === 'all-codons-completed' ? 'ok' : held.run.approvalWait ? 'warn' : 'muted';
      return {
        ...note(held, e.id, `= ${e.data.message}`, 'muted'),
        run: { ...held.run, idle: { ...e.data, at: e.timestamp } },
        notice: { text: e.data.message, tone },
      };
    }
    case 'info':
      return note(state, e.id, `ℹ ${oneLine(e.data.message)}`, 'info');
    case 'error': {
      const d = e.data;
      const severity = severityOf(d);
      let next = addError(state, e);
      if (d.commandId) next = rollbackRefused(next, d.commandId, d.code, d.message);
      const label = `${severity}${d.code ? ` ${d.code}` : ''}: ${oneLine(d.message)}`;
      next = note(next, e.id, `! ${label}`, severity === 'warning' ? 'warn' : 'bad');
      // A refused message: said as such, and where its text went (back to the prompt).
      const message = next.commands.find((c) => c.id === d.commandId && c.type === 'codon.message');
      const text = message ? `${oneLine(commandLine(message))} — m opens it again` : label;
      return { ...next, notice: { text, tone: severity === 'warning' ? 'warn' : 'bad' } };
    }
    case 'incomplete.codon':
      return note(state, e.id, `! ${e.data.codonId} was interrupted: ${oneLine(e.data.message)}`, 'warn');
    case 'checkpoint.list': {
      const d = e.data;
      // Another run's list (the web dashboard asks for the earlier runs of a lineage): not this run's.
      if (state.run.runId && d.runId !== state.run.runId) return state;
      const listed = { runId: d.runId, branch: d.currentBranch, checkpoints: d.checkpoints, at: e.timestamp };
      return {
        ...learnCodonsFromCheckpoints(state, d.checkpoints),
        checkpoints: { ...state.checkpoints, listed },
        run: d.currentBranch ? { ...state.run, branch: d.currentBranch } : state.run,
      };
    }
    case 'assistant.action':
      return countAction(assistantAction(state, e), e.data);
    case 'tool.result':
      return toolResult(state, e);
    case 'codon.message': {
      const next = note(state, e.id, messageLine(e.data, state.connection.clientIds), 'accent');
      return isOwnMessage(e.data.from, state.connection.clientIds)
        ? { ...next, notice: { text: messageSentLine(e.data), tone: 'ok' } }
        : next;
    }
    case 'file.updated':
      return fileUpdated(state, e);
    case 'archive.completed':
      return note(
        state,
        e.id,
        `archived ${e.data.archivedFiles.length} file(s) to ${e.data.archiveDir}`,
        'muted',
      );
    case 'archive.partial':
      return note(
        state,
        e.id,
        `archived ${e.data.archivedFiles.length} file(s); ${e.data.failedFiles.length} failed: ${e.data.failedFiles.join(', ')}`,
        'warn',
      );
    case 'outputs.copied':
      return note(
        state,
        e.id,
        `copied ${e.data.files.length} output file(s) to ${e.data.dir}`,
        e.data.files.length > 0 ? 'muted' : 'warn',
      );
    case 'sentinel.loaded':
      return sentinelLoaded(state, e);
    case 'sentinel.unloaded':
      return sentinelUnloaded(state, e);
    case 'sentinel.output':
      return sentinelOutput(state, e);
    case 'sentinel.error':
      return sentinelActionFailed(sentinelError(state, e), e);
    case 'sentinel.action':
      return sentinelActionLine(state, e);
    case 'verify.started':
      return note(
        state,
        e.id,
        `▶ ${e.data.codonId} gate ${e.data.gate + 1}/${e.data.gates}: ${oneLine(e.data.command)}`,
        'muted',
      );
    case 'verify.completed': {
      const d = e.data;
      const how = d.passed
        ? 'passed'
        : d.stopped
          ? 'stopped'
          : d.timedOut
            ? 'timed out'
            : `failed (exit code ${d.exitCode ?? 'none'})`;
      return note(
        state,
        e.id,
        `${d.passed ? '✓' : '✗'} ${d.codonId} gate ${d.gate + 1} ${how}`,
        d.passed ? 'ok' : 'warn',
      );
    }
    case 'sandbox.denied':
      return note(state, e.id, sandboxDeniedText(e.data), 'warn');
    case 'usageLimit.waiting':
      return usageLimitWaiting(state, e);
    case 'usageLimit.ended':
      return usageLimitEnded(state, e);
    case 'review.comment':
      return reviewComment(state, e);
    case 'review.sent':
      return reviewSent(state, e);
    case 'approval.waiting':
      return approvalWaiting(state, e);
    case 'approval.ended':
      return approvalEnded(state, e);
    // Not shown: the file tree (no pane asks for it), verbose sentinel triggers, gate output (its
    // tail comes with the failure), connection plumbing.
    case 'verify.output':
    case 'checkpoint.diff':
    case 'filetree.updated':
    case 'sentinel.triggered':
    case 'handshake.response':
    case 'server.ready':
    case 'pong':
    case 'dashboard.ticket':
    case 'history.batch':
      return state;
  }
}
