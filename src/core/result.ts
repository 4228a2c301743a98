/**
 * The one shape of an operation that can fail without throwing: a value, or the error saying why there
 * is none. Callers branch on `ok`; an error a user sees carries a code and a message they can act on.
 */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function err<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}
