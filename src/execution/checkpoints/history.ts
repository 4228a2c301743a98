import { splitNul } from './changed-paths.ts';
import { parseCheckpointMessage } from './message.ts';
import type { CheckpointRecord } from './schema.ts';

/** The `git log` arguments whose output `parseLog` reads: NUL between commits, sha and parents first. */
export const LOG_FORMAT_ARGS = ['-z', '--format=%H%n%P%n%B'] as const;

/** Checkpoint records from `git log` output, in its order; commits the store did not write are skipped. */
export function parseLog(output: Buffer): CheckpointRecord[] {
  const records: CheckpointRecord[] = [];
  for (const chunk of splitNul(output)) {
    const text = chunk.toString('utf8');
    const firstBreak = text.indexOf('\n');
    const secondBreak = text.indexOf('\n', firstBreak + 1);
    if (firstBreak < 0 || secondBreak < 0) continue;
    const meta = parseCheckpointMessage(text.slice(secondBreak + 1));
    if (!meta) continue;
    const parent = text.slice(firstBreak + 1, secondBreak).split(' ')[0];
    records.push({
      sha: text.slice(0, firstBreak),
      parentSha: parent ? parent : null,
      runId: meta.runId,
      codonId: meta.codonId,
      codonName: meta.codonName,
      checkpointType: meta.checkpointType,
      status: meta.status,
      timestamp: meta.timestamp,
      initial: meta.initial,
    });
  }
  return records;
}
