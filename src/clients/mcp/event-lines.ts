import type { ServerEvent } from '../../core/protocol/index.ts';

/** The newest `count` lines a console view prints for `events` (oldest first); a line of several is split. Pure. */
export function recentLines(
  events: readonly ServerEvent[],
  describe: (event: ServerEvent) => string | undefined,
  count: number,
): string[] {
  const lines: string[] = [];
  for (const event of events) {
    const text = describe(event);
    if (text !== undefined) lines.push(...text.split('\n'));
  }
  return lines.slice(-count);
}
