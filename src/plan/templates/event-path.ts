/**
 * Dotted paths into an event (`data.toolInput.command`, `data.tree.0.name`), split once when a
 * sentinel loads so the hot path only walks the segments.
 */
export type EventPath = readonly string[];

export function parseEventPath(path: string): EventPath {
  return path.split('.');
}

/** The value at `path`, or undefined when any step is missing (or walks into a non-object). */
export function valueAt(root: unknown, path: EventPath): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    if (!Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
