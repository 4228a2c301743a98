/**
 * `record[key]` for the record's own keys only. Records keyed by ids a client or a plan supplies
 * (runs, codons, sentinels) are plain objects: a plain lookup of `constructor` or `__proto__` would
 * find Object.prototype's members instead of nothing.
 */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
