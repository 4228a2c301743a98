import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const AgentPid = z.object({ pid: z.number().int().positive(), codonId: z.string(), startedAt: z.string() });
export type AgentPid = z.infer<typeof AgentPid>;
/** Earlier versions kept one object; a list now, read either way. */
const Stored = z.union([z.array(AgentPid), AgentPid.transform((one) => [one])]);

/**
 * `.ribosome/agents/active-agent.json`: every agent process a server has started and not yet seen
 * end, so a server restarted after a crash can end each one (and its tools). Written synchronously,
 * right after the spawn, so the record is on disk before anything else happens.
 */
export class AgentPidsFile {
  readonly #file: string;

  constructor(stateDir: string) {
    this.#file = join(stateDir, 'active-agent.json');
  }

  read(): AgentPid[] {
    try {
      return Stored.parse(JSON.parse(readFileSync(this.#file, 'utf8')));
    } catch {
      return []; // Absent, or torn by a crash mid-write (the rename makes that unlikely).
    }
  }

  add(entry: AgentPid): void {
    this.#write([...this.read().filter((e) => e.pid !== entry.pid), entry]);
  }

  remove(pid: number): void {
    this.#write(this.read().filter((e) => e.pid !== pid));
  }

  #write(entries: AgentPid[]): void {
    if (entries.length === 0) {
      rmSync(this.#file, { force: true });
      return;
    }
    const tmp = `${this.#file}.tmp`;
    writeFileSync(tmp, JSON.stringify(entries));
    renameSync(tmp, this.#file);
  }
}
