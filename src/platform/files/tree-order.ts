/** What ordering needs of a directory entry. */
export type NamedEntry = { name: string; isDirectory: boolean };

/**
 * Directories first, then by name compared by UTF-16 code units: the same order on every machine
 * and locale (no `localeCompare`), so two clients never disagree about a tree.
 */
export function compareEntries(a: NamedEntry, b: NamedEntry): number {
  if (a.isDirectory !== b.isDirectory) return a.isDirectory ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * The first `budget` entries in tree order (a new array), and whether some were left out. Taking
 * the first ones in order makes a truncated tree the same from one build to the next.
 */
export function takeInOrder<T extends NamedEntry>(
  entries: readonly T[],
  budget: number,
): { kept: T[]; truncated: boolean } {
  const sorted = [...entries].sort(compareEntries);
  const room = Math.max(0, budget);
  return sorted.length > room
    ? { kept: sorted.slice(0, room), truncated: true }
    : { kept: sorted, truncated: false };
}
