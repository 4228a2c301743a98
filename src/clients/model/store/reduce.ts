import { own, type ServerEvent, type ServerEventOf } from '../../../core/protocol/index.ts';
import { formatCost, oneLine } from '../format.ts';
import {
  assistantAction,
  codonCompletedLine,
  codonStartedLine,
  fileUpdated,
  inActivityBatch,
  note,
  sentinelActionFailed,
  sentinelActionLine,
  toolResult,
} from './activity.ts';
import {
  applySnapshotCodons,
  codonCompleted,
  codonStarted,
  countAction,
  failActiveCodons,
  learnCodonsFromCheckpoints,
  markCostEstimated,
  noteAttempt,
  setCodonCost,
  upsertCodon,
} from './codons.ts';
import { answerCommand, commandLine } from './command-answers.ts';
import { addError, severityOf } from './errors.ts';
import { isOwnMessage, messageLine, messageSentLine } from './messages.ts';
import { isRollbackEvent, rollbackEvent, rollbackRefused, rollbackRequested } from './rollback.ts';
import {
  initialRunState,
  MAX_COMMANDS,
  type RunState,
  type SentCommand,
  type StoreAction,
  type ZERO_TOKENS,
} from './run-state.ts';
import { sentinelError, sentinelLoaded, sentinelOutput, sentinelUnloaded } from './sentinels.ts';
import { readTransition } from './transition-data.ts';

/** The store's reducer: pure, so every pane's data is tested without a terminal or a server. */
export function reduceRun(state: RunState, action: StoreAction): RunState {
  switch (action.kind) {
    case 'events':
      return foldEvents(state, action.events);
    case 'history':
      return finishHistory(state, foldEvents(historyBase(state), action.events));
    case 'historyBegin':
      return { ...state, incoming: historyBase(state) };
    case 'historyEvents':
      return state.incoming ? { ...state, incoming: foldEvents(state.incoming, action.events) } : state;
    case 'historyEnd': {
      const incoming = (action.folded as RunState | undefined)?.incoming ?? state.incoming;
      return incoming ? finishHistory(state, incoming) : state;
    }
    case 'connection':
      return connectionChanged(state, action);
    case 'syncFailed': {
      const { incoming: _dropped, ...rest } = state;
      return {
        ...rest,
        connection: { ...state.connection, syncing: false },
        notice: { text: `history sync failed: ${action.message}`, tone: 'bad' },
      };
    }
    case 'commandSent': {
      const command: SentCommand = {
        id: action.id,
        type: action.type,
        label: action.label,
        status: 'sent',
        ...(action.text === undefined ? {} : { text: action.text }),
      };
      const commands = [...state.commands.slice(1 - MAX_COMMANDS), command];
      const text =
        action.type === 'codon.message' ? commandLine(command) : `sent ${action.type}: ${action.label}`;
      const next = { ...state, commands, notice: { text, tone: 'muted' as const } };
      return action.rollbackTarget ? rollbackRequested(next, action.id, action.rollbackTarget) : next;
    }
    case 'commandNotSent': {
      const notice = { text: `could not send ${action.type}: ${action.message}`, tone: 'bad' as const };
      if (action.text === undefined || action.id === undefined) return { ...state, notice };
      // A message that never left: kept as a failed command, so the prompt gives its text back.
      const command: SentCommand = {
        id: action.id,
        type: action.type,
        label: action.label,
        status: 'failed',
        error: action.message,
        text: action.text,
      };
      return {
        ...state,
        commands: [...state.commands.slice(1 - MAX_COMMANDS), command],
        notice: { ...notice, text: `${oneLine(commandLine(command))} — m opens it again` },
      };
    }
  }
}

/** A history starts over from the journal, keeping what is about this UI rather than the run. */
function historyBase(state: RunState): RunState {
  return {
    ...initialRunState(state.connection.url, state.activityLimit),
    connection: { ...state.connection, syncing: false },
    commands: state.commands,
  };
}

/** The folded history replaces what was shown; commands sent while it streamed are kept. */
function finishHistory(state: RunState, history: RunState): RunState {
  const { incoming: _incoming, ...folded } = history;
  const known = new Set(folded.commands.map((c) => c.id));
  const commands = [...folded.commands, ...state.commands.filter((c) => !known.has(c.id))].slice(
    -MAX_COMMANDS,
  );
  const seeded = seedPlan({ ...folded, connection: { ...state.connection, syncing: false }, commands });
  // After a reconnect, saying so matters more than the last news of the history.
  const notice: RunState['notice'] =
    state.connection.reconnects > 0 && state.connection.syncing
      ? { text: 'reconnected; history synced again', tone: 'ok' }
      : (state.notice ?? seeded.notice);
  return notice ? { ...seeded, notice } : seeded;
}

function connectionChanged(state: RunState, action: Extract<StoreAction, { kind: 'connection' }>): RunState {
  const was = state.connection;
  const lost = action.state === 'reconnecting' || action.state === 'closed';
  const back = action.state === 'open' && was.lostAt !== undefined;
  const { lostAt, ...rest } = was;
  const connection: RunState['connection'] = {
    ...rest,
    state: action.state,
    ...(action.serverVersion ? { serverVersion: action.serverVersion } : {}),
    ...(action.ready?.plan ? { plan: action.ready.plan } : {}),
    ...(action.ready?.proxy ? { proxy: action.ready.proxy } : {}),
    ...(action.clientId && !was.clientIds?.includes(action.clientId)
      ? { clientIds: [...(was.clientIds ?? []), action.clientId] }
      : {}),
    ...(lost ? { lostAt: lostAt ?? action.at } : {}),
    ...(action.state === 'open' ? { syncing: true } : {}),
    reconnects: was.reconnects + (back ? 1 : 0),
  };
  const notice: RunState['notice'] =
    action.state === 'reconnecting'
      ? { text: `connection lost; reconnecting to ${was.url}…`, tone: 'bad' }
      : action.state === 'closed'
        ? { text: `disconnected from ${was.url}; press q to quit`, tone: 'bad' }
        : back
          ? { text: 'reconnected; syncing history…', tone: 'ok' }
          : state.notice;
  return seedPlan({ ...state, connection, ...(notice ? { notice } : {}) });
}

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

function foldEventOnly(state: RunState, e: ServerEvent): RunState {
  if (isRollbackEvent(e)) return rollbackEvent(state, e);
  switch (e.type) {
    case 'codon.started': {
      const d = e.data;
      const { idle: _idle, ...run } = state.run;
      const started = noteAttempt(codonStarted({ ...state, run }, d, 'running', false), d);
      return {
        ...codonStartedLine(started, e),
        notice: {
          text: `running ${d.codonId}: ${d.codonName}${d.agent ? ` (${d.agent})` : ''}`,
          tone: 'accent',
        },
      };
    }
    case 'codon.completed': {
      const next = codonCompleted(state, e.data);
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
      return {
        ...applySnapshotCodons(state, codons),
        run: {
          ...run,
          totalCost: d.totalCost,
          totalCostEstimated: d.totalCostEstimated === true,
          workTime: d.totalTime,
          isRollingBack: d.isRollingBack,
          ...(budgets ? { budgets } : {}),
        },
      };
    }
    case 'state.transition':
      return transition(state, e);
    case 'token.usage': {
      const d = e.data;
      const tokens = {
        input: d.inputTokens,
        output: d.outputTokens,
        cacheCreation: d.cacheCreationTokens,
        cacheRead: d.cacheReadTokens,
      };
      const next = {
        ...state,
        run: { ...state.run, codonTokens: { ...state.run.codonTokens, [d.codonId]: tokens } },
      };
      return d.costEstimated ? markCostEstimated(next, d.codonId) : next;
    }
    case 'server.idle':
      return {
        ...note(state, e.id, `= ${e.data.message}`, 'muted'),
        run: { ...state.run, idle: { ...e.data, at: e.timestamp } },
        notice: { text: e.data.message, tone: e.data.reason === 'all-codons-completed' ? 'ok' : 'muted' },
      };
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

function transition(state: RunState, e: ServerEventOf<'state.transition'>): RunState {
  const { resultingState } = e.data;
  const withTotals: RunState = {
    ...state,
    run: {
      ...state.run,
      ...(resultingState.currentRunId ? { runId: resultingState.currentRunId } : {}),
      runCount: resultingState.runCount,
      totalCost: resultingState.totalCost,
      runCost: resultingState.currentRunCost,
      totalCostEstimated: resultingState.totalCostEstimated === true,
      runCostEstimated: resultingState.currentRunCostEstimated === true,
    },
  };
  const t = readTransition(e.data);
  if (!t) return withTotals;
  const run = withTotals.run;
  switch (t.type) {
    case 'RunStarted': {
      // An idle event spoke of the run before (what it had left to start): a new run has its own say.
      const { endedAt: _e, branch: _b, idle: _i, ...rest } = run;
      return {
        ...withTotals,
        run: {
          ...rest,
          runId: t.data.runId,
          runStatus: 'running',
          startedAt: t.data.startedAt,
          ...(t.data.branch ? { branch: t.data.branch } : {}),
        },
        checkpoints: { created: [] },
      };
    }
    case 'RunCompleted':
    case 'RunFailed':
      return t.data.runId === run.runId
        ? {
            ...withTotals,
            run: {
              ...run,
              runStatus: t.type === 'RunCompleted' ? 'completed' : 'failed',
              endedAt: t.data.endedAt,
            },
          }
        : withTotals;
    case 'RunCrashed':
      return failActiveCodons(
        t.data.runId === run.runId
          ? { ...withTotals, run: { ...run, runStatus: 'crashed', endedAt: t.data.detectedAt } }
          : withTotals,
        'the server stopped while it ran',
      );
    case 'CodonStarted': {
      // A new attempt: its tokens start from zero, the old attempt's are kept in the total.
      const previous = own(run.codonTokens, t.data.codonId);
      const { [t.data.codonId]: _old, ...codonTokens } = run.codonTokens;
      const settled = previous ? addTokens(run.settledTokens, previous) : run.settledTokens;
      return codonStarted(
        { ...withTotals, run: { ...run, codonTokens, settledTokens: settled } },
        t.data,
        'preparing',
        true,
      );
    }
    case 'CodonTransitioned': {
      const d = t.data;
      const row = own(withTotals.codons, d.codonId);
      const next = {
        ...withTotals,
        codons: row
          ? {
              ...withTotals.codons,
              [d.codonId]: {
                ...row,
                status: d.to,
                ...(d.duration === undefined ? {} : { duration: d.duration }),
                ...(d.failureReason ? { failureReason: d.failureReason } : {}),
              },
            }
          : withTotals.codons,
      };
      return next;
    }
    case 'CostsIncremented':
      return setCodonCost(withTotals, t.data.codonId, (row) => row.cost + t.data.amount);
    case 'CostsUpdated':
    case 'CodonFinalCostSet':
      return setCodonCost(withTotals, t.data.codonId, () => t.data.cost);
    case 'CheckpointCreated': {
      if (t.data.runId !== run.runId) return withTotals;
      const created = [...withTotals.checkpoints.created, t.data.checkpoint];
      return { ...withTotals, checkpoints: { ...withTotals.checkpoints, created } };
    }
  }
}

function addTokens(a: typeof ZERO_TOKENS, b: typeof ZERO_TOKENS): typeof ZERO_TOKENS {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheCreation: a.cacheCreation + b.cacheCreation,
    cacheRead: a.cacheRead + b.cacheRead,
  };
}

export function totalTokens(run: RunState['run']): typeof ZERO_TOKENS {
  return Object.values(run.codonTokens).reduce(addTokens, run.settledTokens);
}

/** The current run's own cost (0 is a value: a run just rolled back to has spent nothing yet). */
export const currentRunCost = (run: Pick<RunState['run'], 'runCount' | 'runCost' | 'totalCost'>): number =>
  run.runCount > 1 ? run.runCost : run.totalCost;

/** Whether part of currentRunCost is an estimate. */
export const currentRunCostEstimated = (
  run: Pick<RunState['run'], 'runCount' | 'runCostEstimated' | 'totalCostEstimated'>,
): boolean => (run.runCount > 1 ? run.runCostEstimated : run.totalCostEstimated) === true;

/** The run's cost (and all runs' after a rollback), `~` marking a total that is partly an estimate. */
export const describeCost = (run: RunState['run']) =>
  run.runCount > 1
    ? `${formatCost(currentRunCost(run), currentRunCostEstimated(run))} (all runs ${formatCost(run.totalCost, run.totalCostEstimated)})`
    : formatCost(run.totalCost, run.totalCostEstimated);

/** Codons of the plan (from server.ready) that no event has named yet are shown as pending. */
function seedPlan(state: RunState): RunState {
  let next = state;
  for (const codon of state.connection.plan?.codons ?? []) {
    next = upsertCodon(
      next,
      codon.codonId,
      (row) =>
        row.index !== undefined && (row.agent !== undefined || codon.agent === undefined)
          ? row
          : {
              ...row,
              ...(row.index === undefined ? { index: codon.index } : {}),
              // codon.started says which agent ran it; until then the plan says which will.
              ...(row.agent === undefined && codon.agent !== undefined ? { agent: codon.agent } : {}),
            },
      codon.codonName,
    );
  }
  return next;
}
