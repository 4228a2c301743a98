import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import { liveServerUrl } from '../../runs/read-execution.ts';
import { batchLayout } from '../layout.ts';
import { BatchSummary } from '../summary-schema.ts';
import { fleetOf, type Known, type LiveServer } from './fleet.ts';
import type { BatchFleet } from './fleet-schema.ts';

/**
 * The jobs a batch record (batch.json) lists, read leniently: only their id and index, which is
 * all the fleet needs when summary.json is not there yet.
 */
const RecordedJobs = z.object({
  name: z.string().optional(),
  jobs: z.array(z.object({ id: z.string(), index: z.number().int() })),
});

export type FleetSource = { read(): Promise<BatchFleet> };

/**
 * A batch directory's fleet, read again at each `read()`: summary.json is parsed again only when it
 * changed (its inode, size or mtime: the runner renames a new one in), and when it cannot be read or parsed the last good one is shown,
 * with why; without any, the jobs batch.json lists, or none. Never throws for the batch's files.
 */
export function fleetSource(
  dir: string,
  options: { live?: LiveServer; now?: () => number } = {},
): FleetSource {
  const root = resolve(dir);
  const layout = batchLayout(root);
  const live = options.live ?? liveServerUrl;
  const now = options.now ?? Date.now;
  let last: { stamp: string; summary: BatchSummary } | undefined;

  async function known(): Promise<Known> {
    const info = await stat(layout.summary).catch((error: NodeJS.ErrnoException) => error);
    if (info instanceof Error) {
      const problem =
        info.code === 'ENOENT'
          ? 'summary.json is not there yet (the batch has not started, or was made elsewhere)'
          : `summary.json cannot be read: ${info.message}`;
      return fallback(problem);
    }
    const stamp = `${info.ino}:${info.size}:${info.mtimeMs}`;
    if (last?.stamp === stamp) return { kind: 'summary', summary: last.summary };
    const text = await readFile(layout.summary, 'utf8').catch((error: Error) => error);
    if (text instanceof Error) return fallback(`summary.json cannot be read: ${text.message}`);
    const parsed = parseJson(text, BatchSummary);
    if (!parsed.ok) return fallback(`summary.json is not a batch summary (${parsed.why})`);
    last = { stamp, summary: parsed.value };
    return { kind: 'summary', summary: parsed.value };
  }

  async function fallback(problem: string): Promise<Known> {
    if (last)
      return { kind: 'summary', summary: last.summary, problem: `${problem}; showing it as last read` };
    const text = await readFile(layout.batchRecord, 'utf8').catch(() => undefined);
    const record = text === undefined ? undefined : parseJson(text, RecordedJobs);
    if (record?.ok) {
      return {
        kind: 'record',
        ...(record.value.name === undefined ? {} : { name: record.value.name }),
        jobs: record.value.jobs,
        problem: `${problem}; the jobs are those batch.json lists, their states unknown`,
      };
    }
    return { kind: 'nothing', problem };
  }

  return { read: async () => fleetOf(root, await known(), live, now()) };
}

function parseJson<T>(
  text: string,
  schema: z.ZodType<T>,
): { ok: true; value: T } | { ok: false; why: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, why: `not JSON: ${(error as Error).message}` };
  }
  const parsed = schema.safeParse(value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, why: z.prettifyError(parsed.error).split('\n').slice(0, 2).join('; ') };
}
