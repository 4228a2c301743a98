import { oneLine } from '../format.ts';
import { upsertCodon } from './codons.ts';
import { commandLine } from './command-answers.ts';
import { foldEvents } from './fold-event.ts';
import { rollbackRequested } from './rollback.ts';
import {
  initialRunState,
  MAX_COMMANDS,
  type RunState,
  type SentCommand,
  type StoreAction,
} from './run-state.ts';

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
    case 'notice':
      return { ...state, notice: action.notice };
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
