/**
 * Cheap structural checks, without zod: for what a page bundles (the web dashboard), where a
 * trusted peer's data is checked for the fields it reads and the protocol's schemas would be most
 * of the bundle. Each check is a type guard; `object` names its fields' checks.
 */
export type Check<T> = (v: unknown) => v is T;
type Checked<C> = C extends Check<infer T> ? T : never;

export const isString = (v: unknown): v is string => typeof v === 'string';
export const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
export const isInteger = (v: unknown): v is number => Number.isSafeInteger(v);
export const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const optional =
  <T>(check: Check<T>): Check<T | undefined> =>
  (v): v is T | undefined =>
    v === undefined || check(v);

export const oneOf =
  <const V extends readonly string[]>(values: V): Check<V[number]> =>
  (v): v is V[number] =>
    typeof v === 'string' && values.includes(v);

export const arrayOf =
  <T>(check: Check<T>): Check<T[]> =>
  (v): v is T[] =>
    Array.isArray(v) && v.every(check);

export const recordOf =
  <T>(check: Check<T>): Check<Record<string, T>> =>
  (v): v is Record<string, T> =>
    isRecord(v) && Object.values(v).every(check);

/** An object with at least these fields, each passing its check (other fields are let through). */
export const object =
  <S extends Record<string, Check<unknown>>>(shape: S): Check<{ [K in keyof S]: Checked<S[K]> }> =>
  (v): v is { [K in keyof S]: Checked<S[K]> } =>
    isRecord(v) && Object.entries(shape).every(([key, check]) => check(v[key]));
