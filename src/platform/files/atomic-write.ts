import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes `text` to `file` so that a reader sees the old content or the new, never half of it: into a
 * temporary file beside it, then renamed over it (rename is atomic within a file system).
 */
export function writeFileAtomic(file: string, text: string): void {
  // Not the pid alone: the pods of a cluster batch share a volume, and often their pids too.
  const tmp = `${file}.${randomUUID().slice(0, 8)}.tmp`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

/** writeFileAtomic's asynchronous form; makes the folder if needed. */
export async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${randomUUID().slice(0, 8)}.tmp`;
  try {
    await writeFile(temp, text);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}

/** A JSON file a writer above keeps whole, read and checked by `schema`: undefined when missing, unreadable or not of that shape. */
export function readJsonFile<T>(
  file: string,
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
): T | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
