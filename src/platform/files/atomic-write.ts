import { renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Writes `text` to `file` so that a reader sees the old content or the new, never half of it: into a
 * temporary file beside it, then renamed over it (rename is atomic within a file system).
 */
export function writeFileAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}
