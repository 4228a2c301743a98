import { join, resolve } from 'node:path';
import { executionLayout } from '../../../execution/layout/layout.ts';
import type { ResolvedWorkspace } from '../../../execution/workspace/index.ts';
import { inspectRunDirs, runDirsProblem } from '../run-dirs.ts';
import { chooseExecutionDir } from './execution-dir.ts';
import { type Refusal, refuse } from './exit.ts';
import type { RunRequest } from './parse-flags.ts';
import { chooseWorkspace } from './workspace.ts';

/** Where a run keeps its files: the execution directory, and what a fresh one is cloned from. */
export type Placement = {
  executionDir: string;
  /** A new directory (--fresh): said so at the start. */
  fresh: boolean;
  /** The workspace a fresh agent root is cloned from, under the runtime lock. */
  clone: ResolvedWorkspace | undefined;
};

/** A placement whose data and output directories are checked. */
export type Execution = Placement & { dataDir: string; outputDir: string };

/** The execution directory and its workspace (whose notice, when it is kept, goes to stderr). */
export async function placeExecution(request: RunRequest): Promise<{ ok: true; value: Placement } | Refusal> {
  const chosen = chooseExecutionDir(request.plan.name, request.where);
  if (!chosen.ok) return refuse(chosen.message);
  const workspace = await chooseWorkspace(request.where.workspace, request.plan, chosen.dir);
  if (!workspace.ok) return refuse(workspace.message);
  return { ok: true, value: { executionDir: chosen.dir, fresh: chosen.fresh, clone: workspace.clone } };
}

/** The data and output directories (--data, --output), refused where they would do harm. */
export async function checkRunDirs(
  request: RunRequest,
  placement: Placement,
): Promise<{ ok: true; value: Execution } | Refusal> {
  const { executionDir } = placement;
  const dataDir = resolve(request.where.data ?? `${executionDir}/data`);
  const outputDir = resolve(request.where.output ?? join(executionDir, 'output'));
  const agentRoot = executionLayout(executionDir, request.plan.agentRoot).agentRoot;
  const problem = runDirsProblem(await inspectRunDirs({ executionDir, agentRoot, dataDir, outputDir }));
  if (problem) return refuse(problem);
  return { ok: true, value: { ...placement, dataDir, outputDir } };
}
