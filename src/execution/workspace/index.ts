/** Starting an execution's agent root from the user's git repository (`--workspace`, plan `workspace:`). */
export { decideWorkspace, type WorkspaceDecision } from './decide.ts';
export { readWorkspaceRecord, WorkspaceRecord, workspaceRecordPath } from './record.ts';
export { parseWorkspaceSpec, type WorkspaceSpec } from './spec.ts';
export { trackedIgnoredFiles } from './tracked-ignored.ts';
export { userRepoGit } from './user-git.ts';
export {
  agentRootEntries,
  clearInterruptedClone,
  cloneWorkspace,
  type ResolvedWorkspace,
  resolveWorkspace,
  WorkspaceError,
} from './workspace.ts';
