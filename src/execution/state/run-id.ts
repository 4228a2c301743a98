import { randomUUID } from 'node:crypto';

/** Run ids sort by start time and are unique: `run-<epoch ms>-<8 hex>` (also a valid git branch name part). */
export function newRunId(): string {
  return `run-${Date.now()}-${randomUUID().slice(0, 8)}`;
}
