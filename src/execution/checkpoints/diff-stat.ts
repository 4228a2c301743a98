import { splitNul } from './changed-paths.ts';
import type { DiffStat, DiffStatEntry } from './schema.ts';

/** `git diff-tree -r -z --numstat`: `added TAB deleted TAB path`, `-` counts for binary files. */
export function parseNumstat(output: Buffer): DiffStat {
  const files: DiffStatEntry[] = [];
  let added = 0;
  let deleted = 0;
  for (const entry of splitNul(output)) {
    const text = entry.toString('utf8');
    const first = text.indexOf('\t');
    const second = text.indexOf('\t', first + 1);
    if (first < 0 || second < 0) continue;
    const count = (s: string) => (s === '-' ? null : Number(s));
    const file = {
      path: text.slice(second + 1),
      added: count(text.slice(0, first)),
      deleted: count(text.slice(first + 1, second)),
    };
    added += file.added ?? 0;
    deleted += file.deleted ?? 0;
    files.push(file);
  }
  return { files, added, deleted };
}
