import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../platform/files/atomic-write.ts';

/** One file of the directory: until when an agent is limited on one credential. */
export const SharedLimitRecord = z.object({
  agent: z.string(),
  /** When the limit resets (ISO). */
  until: z.iso.datetime({ offset: true }),
  /** When a run last met it (ISO). */
  notedAt: z.iso.datetime({ offset: true }),
  /** The execution directory of that run. */
  by: z.string().optional(),
});
export type SharedLimitRecord = z.infer<typeof SharedLimitRecord>;

export type SharedLimitsDirOptions = {
  /** The directory the runs share (`ribosome run --shared-limits DIR`); made when missing. */
  dir: string;
  /** The record's name for an agent on this server's credential (credential-key.ts). */
  keyOf: (agent: string) => string;
  /** This run's execution directory, written as `by`. */
  by?: string;
  /** A record that cannot be read or written, said once per file. */
  warn?: (text: string) => void;
};

/**
 * Usage limits shared by the runs on one credential (docs/unattended.md#runs-on-one-credential-wait-together): a directory
 * of small JSON files, `<agent>-<16 hex>.json`, each rewritten whole (atomically) so a reader sees
 * a record or its predecessor, never half. A limit noted keeps the later of its reset and the one
 * already there. A record missing, unreadable or of another shape, or a reset that is past, is no
 * limit: a run never waits on what it cannot read. Neither a read nor a write throws; the engine
 * calls both between codons.
 */
export class SharedLimitsDir {
  readonly #options: SharedLimitsDirOptions;
  readonly #warned = new Set<string>();

  constructor(options: SharedLimitsDirOptions) {
    this.#options = options;
  }

  /** The file of `agent`'s record on this server's credential. */
  fileOf(agent: string): string {
    return join(this.#options.dir, `${this.#options.keyOf(agent)}.json`);
  }

  /** Until when a run sharing the directory found `agent` limited (epoch ms), if it still is at `now`. */
  until(agent: string, now: number): number | undefined {
    const until = this.#read(agent);
    return until !== undefined && until > now ? until : undefined;
  }

  /** This run found `agent` limited until `until` (epoch ms): recorded, unless a later reset is already. */
  note(agent: string, until: number): void {
    const file = this.fileOf(agent);
    const record: SharedLimitRecord = {
      agent,
      until: new Date(until).toISOString(),
      notedAt: new Date().toISOString(),
      ...(this.#options.by === undefined ? {} : { by: this.#options.by }),
    };
    // Read, compare, write: another run may write between the two, so what it left is read again
    // (a few times at most) and a reset earlier than this one is written over.
    for (let tries = 0; tries < 3; tries++) {
      const held = this.#read(agent);
      if (held !== undefined && held >= until) return;
      try {
        mkdirSync(this.#options.dir, { recursive: true });
        writeFileAtomic(file, `${JSON.stringify(record, null, 2)}\n`);
      } catch (error) {
        this.#warnOnce(
          file,
          `shared usage limits: cannot write ${file} (${(error as Error).message}); other runs on this credential will not wait for this limit`,
        );
        return;
      }
    }
  }

  /** The record's reset (epoch ms), or undefined when there is none to read. */
  #read(agent: string): number | undefined {
    const file = this.fileOf(agent);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      // No record (nor a directory yet): no limit. A directory that cannot be made is said at a write.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        this.#warnOnce(
          file,
          `shared usage limits: cannot read ${file} (${(error as Error).message}); read as no limit`,
        );
      return undefined;
    }
    const parsed = parseRecord(text);
    if (parsed === undefined || parsed.agent !== agent) {
      this.#warnOnce(
        file,
        `shared usage limits: ${file} is not a usage-limit record; read as no limit until a run writes it again`,
      );
      return undefined;
    }
    return Date.parse(parsed.until);
  }

  #warnOnce(file: string, text: string): void {
    if (this.#warned.has(file)) return;
    this.#warned.add(file);
    this.#options.warn?.(text);
  }
}

function parseRecord(text: string): SharedLimitRecord | undefined {
  try {
    const parsed = SharedLimitRecord.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
