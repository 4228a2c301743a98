import { type ExecutionLayout, executionLayout } from '../../../execution/layout/layout.ts';
import {
  agentRootEntries,
  clearInterruptedClone,
  cloneWorkspace,
  decideWorkspace,
  parseWorkspaceSpec,
  type ResolvedWorkspace,
  readWorkspaceRecord,
  resolveWorkspace,
  trackedIgnoredFiles,
  WorkspaceError,
} from '../../../execution/workspace/index.ts';
import { hasRuns } from './execution-dir.ts';

/**
 * The workspace of this start (`--workspace` over the plan's `workspace:`): checked and resolved
 * before anything starts when a fresh execution will be cloned from it; on an execution that has one
 * already (or has runs), the notice that it is kept.
 */
export async function chooseWorkspace(
  option: string | undefined,
  plan: { workspace?: string; dir: string; agentRoot: string },
  executionDir: string,
): Promise<{ ok: true; clone?: ResolvedWorkspace } | { ok: false; message: string }> {
  const given = option ?? plan.workspace;
  if (given === undefined) return { ok: true };
  const spec = parseWorkspaceSpec(given, option === undefined ? plan.dir : process.cwd());
  if (!spec.ok) return spec;
  const { agentRoot, internal } = executionLayout(executionDir, plan.agentRoot);
  const decision = decideWorkspace({
    spec: spec.value,
    recorded: readWorkspaceRecord(executionDir),
    hasRuns: hasRuns(executionDir),
    agentRoot,
    agentRootEntries: agentRootEntries(agentRoot, internal),
  });
  if (decision.action === 'refuse') return { ok: false, message: decision.message };
  if (decision.action === 'keep') process.stderr.write(`${decision.notice}\n`);
  if (decision.action !== 'clone') return { ok: true };
  try {
    return { ok: true, clone: await resolveWorkspace(spec.value) };
  } catch (error) {
    if (error instanceof WorkspaceError) return { ok: false, message: error.message };
    throw error;
  }
}

/** Clones the workspace under the runtime lock, checking again that the agent root is still empty. */
export async function cloneInto(
  workspace: ResolvedWorkspace,
  layout: ExecutionLayout,
  logger: { info(o: object, m: string): void },
): Promise<void> {
  const cleared = await clearInterruptedClone(layout);
  if (cleared.length > 0) {
    logger.info({ entries: cleared }, 'a clone killed half-way taken out of the agent root');
    process.stderr.write(
      `ribosome: the last start was stopped while it cloned the workspace; what it had moved into the agent root (${cleared.slice(0, 3).join(', ')}${cleared.length > 3 ? ', ...' : ''}) is taken out and the clone made again\n`,
    );
  }
  const entries = agentRootEntries(layout.agentRoot);
  if (entries.length > 0) {
    throw new WorkspaceError(
      `workspace: the agent root ${layout.agentRoot} already holds files (${entries.slice(0, 3).join(', ')}); a workspace is cloned only into an empty one`,
    );
  }
  const record = await cloneWorkspace(workspace, layout);
  logger.info({ workspace: record }, 'agent root cloned from the workspace');
  process.stderr.write(
    `ribosome: agent root cloned from ${record.repo} at ${record.ref ?? 'HEAD'} (${record.commit.slice(0, 12)})\n`,
  );
}

/**
 * A workspace's tracked files that its .gitignore matches: the checkpoints take them too, so the
 * agent's changes to them reach export and rollback. Read from the clone at every start.
 */
export async function workspaceIncludes(
  layout: ExecutionLayout,
  logger: { warn(o: object, m: string): void },
): Promise<Buffer[]> {
  if (readWorkspaceRecord(layout.executionDir) === undefined) return [];
  const found = await trackedIgnoredFiles(layout.agentRoot);
  if (found.ok) return found.value;
  logger.warn({ reason: found.message }, 'tracked ignored files of the workspace not known');
  return [];
}
