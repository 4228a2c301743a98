import { LIFELINE_FD, sandboxArgv } from './argv.ts';
import { sandboxEnv } from './env.ts';
import type { SandboxLaunch } from './launch.ts';
import { sandboxSupport } from './support.ts';

/** A command line to start, with its working directory and environment. */
export type CommandLine = { command: string; args: readonly string[]; cwd: string; env: NodeJS.ProcessEnv };

/**
 * `line` as it runs inside `launch`: bwrap's command line (with the bwrap and socat the support probe
 * found) and the environment inside (docs/agents.md#the-sandbox). The caller has checked
 * sandboxSupport() and started the launch's network gate. `lifeline`: the descriptor at which the
 * caller must give the process the read end of a pipe it keeps the other end of (sandboxInit); every
 * sandbox has one.
 */
export function sandboxedCommand(
  line: CommandLine,
  launch: SandboxLaunch,
): { command: string; args: string[]; env: NodeJS.ProcessEnv; lifeline: number } {
  const support = sandboxSupport();
  const { command, args } = sandboxArgv(launch, line.command, line.args, {
    cwd: line.cwd,
    path: line.env.PATH,
    lifeline: LIFELINE_FD,
    ...(support.ok ? { bwrap: support.bwrap, socat: support.socat } : {}),
  });
  return { command, args, env: sandboxEnv(launch, line.env), lifeline: LIFELINE_FD };
}
