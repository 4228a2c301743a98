import { dirname, resolve } from 'node:path';
import { parseWorkspaceSpec, resolveWorkspace, WorkspaceError } from '../../../execution/workspace/index.ts';
import { formatProblems, loadPlan } from '../../../plan/index.ts';
import { hasErrors, type PlanProblem, sortProblems } from '../../../plan/problems.ts';
import { readSourceFile } from '../../../plan/source-file.ts';
import { issuesToDrafts } from '../../../plan/zod-issues.ts';
import { BatchFile, type Job } from '../batch-schema.ts';
import { expandBatch } from '../expand.ts';

export type LoadedBatch = {
  /** The batch file, absolute. */
  file: string;
  batch: BatchFile;
  jobs: Job[];
};

export type LoadBatchResult =
  | { ok: true; value: LoadedBatch; warnings: string }
  | { ok: false; text: string };

/**
 * Reads and checks a batch file and everything its jobs name, before any job starts: the file's
 * shape, its jobs (ids, a plan for each), each plan as each job will run it (its agent and model
 * applied), and each workspace (a git repository with that ref). Problems are reported all at once,
 * each at its line, as `ribosome validate` reports a plan's.
 */
export async function loadBatch(path: string): Promise<LoadBatchResult> {
  const file = resolve(path);
  const read = await readSourceFile(file, 'batch file');
  if (!read.ok) return { ok: false, text: formatProblems(read.problems, file) };
  const { source } = read;
  const parsed = BatchFile.safeParse(source.data);
  if (!parsed.success) {
    const problems = issuesToDrafts(parsed.error.issues, BatchFile, source.data).map(source.locate);
    return { ok: false, text: formatProblems(sortProblems([...read.warnings, ...problems], [file]), file) };
  }
  const expanded = expandBatch(parsed.data, dirname(file));
  if (!expanded.ok) {
    const problems = expanded.problems.map((p) =>
      source.locate({ code: p.code, path: p.path, message: p.message, hint: 'See docs/batches.md.' }),
    );
    return { ok: false, text: formatProblems(sortProblems(problems, [file]), file) };
  }
  const jobs = expanded.jobs;
  const texts: string[] = [];
  const warnings: PlanProblem[] = [];
  // Each plan once per agent and model its jobs give it.
  const seen = new Set<string>();
  for (const job of jobs) {
    const key = JSON.stringify([job.plan, job.agent ?? '', job.model ?? '']);
    if (seen.has(key)) continue;
    seen.add(key);
    const plan = await loadPlan(job.plan, {
      ...(job.agent === undefined ? {} : { agent: job.agent }),
      ...(job.model === undefined ? {} : { model: job.model }),
    });
    const problems = plan.ok ? plan.warnings : plan.problems;
    if (!plan.ok || hasErrors(problems)) {
      const as = [job.agent && `agent ${job.agent}`, job.model && `model ${job.model}`].filter(Boolean);
      texts.push(
        `job ${job.id}${as.length > 0 ? ` (${as.join(', ')})` : ''}: its plan ${job.plan} cannot run:\n${formatProblems(problems, job.plan)}`,
      );
    } else warnings.push(...problems);
  }
  const workspaces = new Map<string, string>();
  for (const job of jobs)
    if (job.workspace !== undefined && !workspaces.has(job.workspace)) workspaces.set(job.workspace, job.id);
  for (const [workspace, id] of workspaces) {
    const spec = parseWorkspaceSpec(workspace, dirname(file));
    if (!spec.ok) {
      texts.push(`job ${id}: ${spec.message}`);
      continue;
    }
    try {
      await resolveWorkspace(spec.value);
    } catch (error) {
      if (!(error instanceof WorkspaceError)) throw error;
      texts.push(`job ${id}: ${error.message}`);
    }
  }
  if (texts.length > 0) return { ok: false, text: texts.join('\n') };
  const warningText = warnings.length > 0 ? formatProblems(warnings, file) : '';
  return { ok: true, value: { file, batch: parsed.data, jobs }, warnings: warningText };
}
