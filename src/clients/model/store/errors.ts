import type { ErrorSeverity, ServerEventOf } from '../../../core/protocol/index.ts';
import { oneLine } from '../format.ts';
import { type ErrorView, MAX_ERRORS, type RunState } from './run-state.ts';

/**
 * The severity of an error event. The spec makes `severity` optional: without it, a fatal flag means
 * fatal, an answer to one of our commands is an operation error, a codon's error is a codon error.
 */
export function severityOf(d: ServerEventOf<'error'>['data']): ErrorSeverity {
  if (d.severity) return d.severity;
  if (d.fatal) return 'fatal';
  if (d.commandId) return 'operation';
  return d.codon ? 'codon' : 'warning';
}

export function addError(state: RunState, e: ServerEventOf<'error'>): RunState {
  const d = e.data;
  const command = d.commandId ? state.commands.find((c) => c.id === d.commandId) : undefined;
  const view: ErrorView = {
    id: e.id,
    timestamp: e.timestamp,
    severity: severityOf(d),
    message: oneLine(d.message, 2_000),
    ...(d.code ? { code: d.code } : {}),
    ...(d.codon ? { codon: d.codon } : {}),
    ...(d.context ? { context: d.context } : {}),
    ...(command ? { command: command.type } : {}),
  };
  const full = state.errors.length >= MAX_ERRORS;
  const errors = full ? [...state.errors.slice(1 - MAX_ERRORS), view] : [...state.errors, view];
  const commands = command
    ? state.commands.map((c) =>
        c === command
          ? { ...c, status: 'failed' as const, error: `${d.code ? `${d.code}: ` : ''}${d.message}` }
          : c,
      )
    : state.commands;
  return { ...state, errors, errorsDropped: state.errorsDropped + (full ? 1 : 0), commands };
}
