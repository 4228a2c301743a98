import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from '../plan/primitives.ts';
import type { SandboxLaunch } from '../platform/sandbox/launch.ts';

/**
 * The SpawnSpec field of a run in `sandbox` (absent: none), with the agent's own homes made
 * writable and its files in the state directory readable (the state directory lies in the hidden
 * `.ribosome`; never all of it: it holds the pid files the server trusts). Pure.
 */
export function sandboxWith(
  sandbox: SandboxLaunch | undefined,
  own: { writable: readonly string[]; readOnly?: readonly string[] },
): { sandbox?: SandboxLaunch } {
  if (!sandbox) return {};
  return {
    sandbox: {
      ...sandbox,
      writable: [...new Set([...sandbox.writable, ...own.writable])],
      readOnly: [...new Set([...sandbox.readOnly, ...(own.readOnly ?? [])])],
    },
  };
}

/** An agent CLI's own configuration under the user's home (agentConfig `user`): writable in the sandbox. */
export function userConfigDirs(agent: Exclude<Agent, 'builtin'>, home = homedir()): string[] {
  switch (agent) {
    case 'claude-code':
      return [join(home, '.claude'), join(home, '.claude.json')];
    case 'codex':
      return [process.env.CODEX_HOME || join(home, '.codex')];
    case 'gemini':
      return [join(home, '.gemini')];
    case 'opencode':
      return [join(home, '.local', 'share', 'opencode'), join(home, '.config', 'opencode')];
  }
}
