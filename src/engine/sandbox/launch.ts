import { executionLayout } from '../../execution/layout/layout.ts';
import { resolveSandboxPath } from '../../plan/sandbox-paths.ts';
import type { EffectiveSandbox } from '../../plan/sandbox-resolve.ts';
import type { SandboxLaunch } from '../../platform/sandbox/launch.ts';

/** Where a codon's agent works, and what lies around it, as the launch builder needs it. */
export type LaunchPlace = {
  agentRoot: string;
  executionDir: string;
  rigArchive: string;
  /** The data directory's real path (the link in the agent root resolved), when there is one. */
  dataDir?: string;
  home: string;
  /** Directories beside the execution that are executions themselves. */
  otherExecutions: readonly string[];
  /** The user's secrets (defaultHidden of the home). */
  secrets: readonly string[];
};

/**
 * A codon's SandboxLaunch (docs/agents.md#the-sandbox): the agent root and `allowWrite` writable;
 * the data directory and `readOnly` read-only; the execution's `.ribosome`, `rigArchive/`, other
 * executions, the user's secrets and `hide` hidden. The adapter adds its own homes. Pure.
 */
export function buildLaunch(
  sandbox: Pick<EffectiveSandbox, 'allowWrite' | 'readOnly' | 'hide'>,
  place: LaunchPlace,
  network: SandboxLaunch['network'],
): SandboxLaunch {
  const resolve = (path: string) =>
    resolveSandboxPath(path, { home: place.home, agentRoot: place.agentRoot });
  return {
    writable: unique([place.agentRoot, ...sandbox.allowWrite.map(resolve)]),
    readOnly: unique([...(place.dataDir ? [place.dataDir] : []), ...sandbox.readOnly.map(resolve)]),
    hidden: unique([
      executionLayout(place.executionDir).internal,
      place.rigArchive,
      ...place.otherExecutions,
      ...place.secrets,
      ...sandbox.hide.map(resolve),
    ]),
    network,
  };
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}
