import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';

/**
 * A small list kept in a JSON file under `.ribosome/` (the archive manifest, the rig directories):
 * validated on read, absent = empty, replaced atomically (temp file + rename) on write.
 */
export class JsonListFile<T> {
  readonly #file: string;
  readonly #schema: z.ZodType<T[]>;

  constructor(file: string, item: z.ZodType<T>) {
    this.#file = file;
    this.#schema = z.array(item);
  }

  async read(): Promise<T[]> {
    try {
      return this.#schema.parse(JSON.parse(await readFile(this.#file, 'utf8')));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** Replaces the list; on failure (a full disk) the file is as it was and no temp file is left. */
  async write(entries: T[]): Promise<void> {
    const tmp = `${this.#file}.tmp`;
    await mkdir(dirname(this.#file), { recursive: true });
    try {
      await writeFile(tmp, JSON.stringify(entries, null, 2));
      await rename(tmp, this.#file);
    } catch (error) {
      await rm(tmp, { force: true }).catch(() => {});
      throw error;
    }
  }

  async add(entry: T): Promise<void> {
    await this.write([...(await this.read()), entry]);
  }
}
