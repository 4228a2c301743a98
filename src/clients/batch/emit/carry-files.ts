import { basename, dirname, isAbsolute, posix, relative, resolve, sep } from 'node:path';
import { parse, parseDocument } from 'yaml';
import { BatchFile, type Job } from '../../../plan/batch-schema.ts';
import { expandBatch } from '../expand.ts';
import { EmitError } from './emit-error.ts';

/**
 * The files a cluster's pods need to expand the batch as this machine does: the batch file and every
 * job's plan (and any other file given), laid out under one folder (BATCH_MOUNT in the pod) as they
 * lie under their deepest common folder here, so that every relative path between them still holds.
 * Plan paths written absolute in the batch file are rewritten to their place in the pod; the result
 * is expanded again as the pod will expand it, and must give the same jobs (index, id, plan). Pure.
 */

/** Where the pods find the carried files (a ConfigMap volume). */
export const BATCH_MOUNT = '/batch';
/**
 * What a ConfigMap may hold is 1 MiB in all (the API server's limit on the object, as etcd's); the
 * object's own fields take some of it.
 */
export const CONFIGMAP_DATA_LIMIT = 1_048_576 - 16_384;

export type CarriedFile = {
  /** The ConfigMap key: letters, digits, "-", "_", "." only. */
  key: string;
  /** Where it lies under BATCH_MOUNT. */
  path: string;
  text: string;
};

export type Carried = {
  files: CarriedFile[];
  /** The batch file's absolute path in the pod. */
  batchPath: string;
  /** The jobs as the pods expand them: the same ids and plans; workspaces as the pods will look for them. */
  podJobs: Job[];
};

export type CarryInput = {
  batch: BatchFile;
  jobs: readonly Job[];
  /** The batch file, absolute. */
  batchFile: string;
  /** Absolute, normalized path -> text: the batch file, every job's plan, any other file its plans need. */
  files: ReadonlyMap<string, string>;
};

export function carryFiles(input: CarryInput): Carried {
  const { batch, jobs, batchFile, files } = input;
  const needed = [batchFile, ...new Set(jobs.map((job) => job.plan))];
  const missing = needed.filter((path) => !files.has(path));
  if (missing.length > 0)
    throw new EmitError('EMIT_FILE_MISSING', `Not given, so not carried to the pods: ${missing.join(', ')}.`);

  const paths = [...files.keys()].sort();
  const root = commonFolder(paths.map((path) => dirname(path)));
  const inPod = (path: string) => posix.join(BATCH_MOUNT, ...relative(root, path).split(sep));
  const batchPath = inPod(batchFile);

  const rewritten = rewritePlans(
    batch,
    files.get(batchFile) ?? '',
    basename(batchFile),
    inPod,
    dirname(batchFile),
  );
  const carried: CarriedFile[] = paths.map((path, i) => ({
    key: configMapKey(i, path),
    path: posix.relative(BATCH_MOUNT, inPod(path)),
    text: path === batchFile ? rewritten : (files.get(path) ?? ''),
  }));

  const bytes = carried.reduce((sum, file) => sum + Buffer.byteLength(file.text) + file.key.length, 0);
  if (bytes > CONFIGMAP_DATA_LIMIT)
    throw new EmitError(
      'EMIT_TOO_LARGE',
      `The batch file and its plans come to ${bytes} bytes; one ConfigMap holds ${CONFIGMAP_DATA_LIMIT}. Put the plans in the image or on a volume and list them by absolute path.`,
    );
  const podJobs = sameJobsInPod(jobs, rewritten, batchPath, inPod);
  return { files: carried, batchPath, podJobs };
}

/** The deepest folder holding every one of `folders` (absolute). */
function commonFolder(folders: readonly string[]): string {
  let common = folders[0] ?? '/';
  for (const folder of folders) {
    while (common !== '/' && folder !== common && !folder.startsWith(`${common}${sep}`))
      common = dirname(common);
  }
  return common;
}

/** `3-review.yaml`: the file's place in the sorted list keeps keys unique; at most 253 characters. */
function configMapKey(index: number, path: string): string {
  const name = basename(path).replace(/[^-._a-zA-Z0-9]+/g, '_');
  return `${index}-${name}`.slice(0, 253);
}

/** Where the batch file names a plan: [path in the file, value]. */
function planPaths(batch: BatchFile): [(string | number)[], string][] {
  const found: [(string | number)[], string][] = [];
  if (batch.defaults?.plan !== undefined) found.push([['defaults', 'plan'], batch.defaults.plan]);
  for (const [i, job] of (batch.jobs ?? []).entries())
    if (job.plan !== undefined) found.push([['jobs', i, 'plan'], job.plan]);
  for (const [i, plan] of (batch.matrix?.plan ?? []).entries()) found.push([['matrix', 'plan', i], plan]);
  for (const list of ['include', 'exclude'] as const)
    for (const [i, row] of (batch.matrix?.[list] ?? []).entries())
      if (row.plan !== undefined) found.push([['matrix', list, i, 'plan'], row.plan]);
  return found;
}

/**
 * The batch file's text with each absolute plan path replaced by the plan's path in the pod; a relative
 * one holds as it is. The text unchanged when no path is absolute (comments and all); else YAML keeps
 * its comments, JSON is written anew.
 */
function rewritePlans(
  batch: BatchFile,
  text: string,
  name: string,
  inPod: (path: string) => string,
  dir: string,
): string {
  const absolute = planPaths(batch).filter(([, value]) => isAbsolute(value));
  if (absolute.length === 0) return text;
  if (/\.json$/i.test(name)) {
    const data = JSON.parse(text) as Record<string, unknown>;
    for (const [path, value] of absolute) setIn(data, path, inPod(resolve(dir, value)));
    return `${JSON.stringify(data, null, 2)}\n`;
  }
  const doc = parseDocument(text);
  for (const [path, value] of absolute) doc.setIn(path, inPod(resolve(dir, value)));
  return String(doc);
}

function setIn(data: unknown, path: readonly (string | number)[], value: string): void {
  let at = data as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) at = at[step] as Record<string | number, unknown>;
  at[path[path.length - 1] as string | number] = value;
}

/** The rewritten batch, expanded in the pod's folder, gives the same jobs: each index the same id and plan. */
function sameJobsInPod(
  jobs: readonly Job[],
  text: string,
  batchPath: string,
  inPod: (path: string) => string,
): Job[] {
  const parsed = BatchFile.safeParse(parse(text));
  const expanded = parsed.success ? expandBatch(parsed.data, posix.dirname(batchPath)) : undefined;
  const podJobs = expanded?.ok ? expanded.jobs : [];
  const differs = jobs.findIndex(
    (job, i) => podJobs[i]?.id !== job.id || podJobs[i]?.plan !== inPod(job.plan),
  );
  if (podJobs.length !== jobs.length || differs >= 0) {
    const job = jobs[differs === -1 ? 0 : differs];
    throw new EmitError(
      'EMIT_JOBS_CHANGED',
      `With its plans moved to ${BATCH_MOUNT}, the batch would not give the same jobs in the pods${job ? ` (job ${job.index}, "${job.id}")` : ''}: write each plan's path one way (all relative to the batch file, say).`,
    );
  }
  return podJobs;
}
