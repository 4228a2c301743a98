import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';

export const RigDirsEntry = z.object({
  runId: z.string(),
  codonId: z.string(),
  /** The codon's rig-setup checkpoint: a rollback to before it removes these directories. */
  sha: z.string(),
  directories: z.array(z.string()),
});
export type RigDirsEntry = z.infer<typeof RigDirsEntry>;

/** `.ribosome/rig-dirs.json`: directories rig setup created, per codon, for rollback cleanup. */
export class RigDirsLog {
  readonly #file: string;
  constructor(file: string) {
    this.#file = file;
  }

  async read(): Promise<RigDirsEntry[]> {
    try {
      return z.array(RigDirsEntry).parse(JSON.parse(await readFile(this.#file, 'utf8')));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  async write(entries: RigDirsEntry[]): Promise<void> {
    await mkdir(dirname(this.#file), { recursive: true });
    await writeFile(`${this.#file}.tmp`, JSON.stringify(entries, null, 2));
    await rename(`${this.#file}.tmp`, this.#file);
  }

  async add(entry: RigDirsEntry): Promise<void> {
    await this.write([...(await this.read()), entry]);
  }
}
