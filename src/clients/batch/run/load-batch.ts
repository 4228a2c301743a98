import { dirname, resolve } from 'node:path';
import { parseWorkspaceSpec, resolveWorkspace, WorkspaceError } from '../../../execution/workspace/index.ts';
import { BatchFile, type Job } from '../../../plan/batch-schema.ts';
import { formatProblems, loadPlan } from '../../../plan/index.ts';
import { MODEL_ID_PATTERN } from '../../../plan/primitives.ts';
import { hasErrors, type PlanProblem, sortProblems } from '../../../plan/problems.ts';
import { readSourceFile, wholeFile } from '../../../plan/source-file.ts';
import { issuesToDrafts } from '../../../plan/zod-issues.ts';
import { expandBatch } from '../expand.ts';

export type LoadedBatch = {
  /** The batch file, absolute. */
  file: string;
  batch: BatchFile;
  jobs: Job[];
};

export type LoadBatchResult =
  | { ok: true; value: LoadedBatch; warnings: PlanProblem[] }
  | { ok: false; problems: PlanProblem[] };

/** The problems of a batch as a person reads them, each at its file and line. */
export const batchProblemsText = (problems: readonly PlanProblem[], file: string) =>
  formatProblems(problems, resolve(file));

/**
 * Reads and checks a batch file and everything its jobs name, before any job starts: the file's
 * shape, its jobs (ids, a plan for each), each plan as each job will run it (its agent and model
 * applied), and each workspace (a git repository with that ref); with `only`, that job's plan and
 * workspace alone. Problems are reported all at once,
 * each at its line, as `ribosome validate` reports a plan's.
 */
export async function loadBatch(path: string, only?: { jobIndex: number }): Promise<LoadBatchResult> {
  const file = resolve(path);
  const read = await readSourceFile(file, 'batch file');
  if (!read.ok) return { ok: false, problems: read.problems };
  const { source } = read;
  const parsed = BatchFile.safeParse(source.data);
  if (!parsed.success) {
    const problems = issuesToDrafts(parsed.error.issues, BatchFile, source.data).map(source.locate);
    return { ok: false, problems: sortProblems([...read.warnings, ...problems], [file]) };
  }
  const expanded = expandBatch(parsed.data, dirname(file));
  if (!expanded.ok) {
    const problems = expanded.problems.map((p) =>
      source.locate({ code: p.code, path: p.path, message: p.message, hint: 'See docs/batches.md.' }),
    );
    return { ok: false, problems: sortProblems(problems, [file]) };
  }
  const jobs = expanded.jobs;
  // One job of many (a pod, a CI matrix entry): only its own plan and workspace need be here.
  const checked = only === undefined ? jobs : jobs.filter((j) => j.index === only.jobIndex);
  const problems: PlanProblem[] = [];
  const warnings: PlanProblem[] = [...read.warnings];
  // Each plan once per agent and model its jobs give it.
  const seen = new Set<string>();
  for (const job of checked) {
    const key = JSON.stringify([job.plan, job.agent ?? '', job.model ?? '']);
    if (seen.has(key)) continue;
    seen.add(key);
    const plan = await loadPlan(job.plan, {
      ...(job.agent === undefined ? {} : { agent: job.agent }),
      ...(job.model === undefined ? {} : { model: job.model }),
    });
    const found = plan.ok ? plan.warnings : plan.problems;
    const as = [job.agent && `agent ${job.agent}`, job.model && `model ${job.model}`].filter(Boolean);
    // Said of the job that runs it: a plan may be fine with one agent and not with another.
    const ofJob = found.map((p) => ({
      ...p,
      message: `(job ${job.id}${as.length > 0 ? `, ${as.join(', ')}` : ''}) ${p.message}`,
    }));
    if (!plan.ok || hasErrors(found)) problems.push(...ofJob);
    else warnings.push(...ofJob);
  }
  for (const job of checked) {
    if (job.model !== undefined && !MODEL_ID_PATTERN.test(job.model)) {
      problems.push(
        wholeFile(
          file,
          'INVALID_VALUE',
          `job ${job.id}: model "${job.model}" is not a model id (printable, no spaces)`,
          'Write a model id such as claude-sonnet-4-5.',
        ),
      );
    }
  }
  const workspaces = new Map<string, string>();
  for (const job of checked) {
    if (job.workspace !== undefined && !workspaces.has(job.workspace)) workspaces.set(job.workspace, job.id);
  }
  for (const [workspace, id] of workspaces) {
    const spec = parseWorkspaceSpec(workspace, dirname(file));
    if (!spec.ok) {
      problems.push(workspaceProblem(file, id, spec.message));
      continue;
    }
    try {
      await resolveWorkspace(spec.value);
    } catch (error) {
      if (!(error instanceof WorkspaceError)) throw error;
      problems.push(workspaceProblem(file, id, error.message));
    }
  }
  if (problems.length > 0) return { ok: false, problems: sortProblems(problems, [file]) };
  return { ok: true, value: { file, batch: parsed.data, jobs }, warnings };
}

const workspaceProblem = (file: string, id: string, message: string) =>
  wholeFile(
    file,
    'INVALID_VALUE',
    `job ${id}: ${message}`,
    'Name a git repository that has a commit, and a ref it has (PATH@REF).',
  );
