import { sameWorkspace, type WorkspaceSpec } from './spec.ts';

export type WorkspaceDecision =
  | { action: 'none' }
  | { action: 'clone' }
  | { action: 'keep'; notice: string }
  | { action: 'refuse'; message: string };

/**
 * What a start does with a workspace: clone it into a fresh execution's empty agent root; on an
 * execution that already has one (or already has runs), keep what is there and say so when the
 * workspace given now differs.
 */
export function decideWorkspace(input: {
  spec: WorkspaceSpec | undefined;
  recorded: { repo: string; ref: string | null; commit: string } | undefined;
  hasRuns: boolean;
  agentRoot: string;
  agentRootEntries: readonly string[];
}): WorkspaceDecision {
  const { spec, recorded } = input;
  if (spec === undefined) return { action: 'none' };
  if (recorded) {
    if (sameWorkspace(spec, recorded)) return { action: 'none' };
    const was = `${recorded.repo}${recorded.ref === null ? '' : `@${recorded.ref}`}`;
    return {
      action: 'keep',
      notice: `ribosome: this execution started from workspace ${was} (commit ${recorded.commit.slice(0, 12)}); it is kept, the workspace given now (${describe(spec)}) is ignored`,
    };
  }
  if (input.hasRuns) {
    return {
      action: 'keep',
      notice: `ribosome: this execution already has runs without a workspace; the workspace ${describe(spec)} is ignored (--fresh starts anew)`,
    };
  }
  if (input.agentRootEntries.length > 0) {
    const shown = input.agentRootEntries.slice(0, 3).join(', ');
    const more = input.agentRootEntries.length > 3 ? ', ...' : '';
    return {
      action: 'refuse',
      message: `workspace: the agent root ${input.agentRoot} already holds files (${shown}${more}); a workspace is cloned only into an empty one: empty it, or choose another --execution`,
    };
  }
  return { action: 'clone' };
}

function describe(spec: WorkspaceSpec): string {
  return `${spec.path}${spec.ref === undefined ? '' : `@${spec.ref}`}`;
}
