import { RUNTIME_EXIT } from '../../../host/server/runtime.ts';
import { faultAdvice, type StorageFault } from '../../../platform/storage/guard.ts';

/** `ribosome run`'s exit codes. */
export const EXIT = {
  ok: RUNTIME_EXIT.ok,
  failure: RUNTIME_EXIT.failure,
  invalidInput: 2,
  locked: 3,
  storageFailed: RUNTIME_EXIT.storageFailed,
} as const;

/** Why a run does not start: the text for stderr, and the exit code. */
export type Refusal = { ok: false; code: number; text: string };

export function refuse(message: string, code: number = EXIT.invalidInput): Refusal {
  return { ok: false, code, text: `ribosome: ${message}` };
}

/** Writes the refusal to stderr; its exit code. */
export function refused(refusal: Refusal): number {
  process.stderr.write(`${refusal.text}\n`);
  return refusal.code;
}

/**
 * The server has stopped: exit with `code` as soon as nothing is left to do, and at the latest after
 * a grace period, so a handle someone forgot (a pipe of a failed spawn, a socket) never keeps a
 * stopped server's process alive.
 */
export function exitOnceStopped(code: number, graceMs = 3_000): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), graceMs).unref();
}

/** What a storage failure means for the person at the terminal. */
export function storageNotice(fault: StorageFault, what: 'stopped' | 'cannot start'): string {
  return `${what}: ${fault.message} (exit ${EXIT.storageFailed}). ${faultAdvice(fault)}`;
}
