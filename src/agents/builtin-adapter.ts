import { join, resolve } from 'node:path';
import type { AgentAdapter, AgentRun, AgentStart } from './agent-adapter.ts';
import { providerEnv } from './provider-env.ts';
import { spawnAgent } from './spawn-agent.ts';

const BIN = resolve(import.meta.dirname, '../../bin/ribosome');

/** Ribosome's own agent (`ribosome agent`), started as a child process like any other agent. */
export class BuiltinAdapter implements AgentAdapter {
  readonly kind = 'builtin';

  start(options: AgentStart): AgentRun {
    const args = ['agent', '--model', options.model, '--cwd', options.cwd];
    args.push('--session-dir', join(options.stateDir, 'sessions'));
    if (options.resumeSessionId) args.push('--resume', options.resumeSessionId);
    return spawnAgent({
      command: BIN,
      args,
      cwd: options.cwd,
      env: { ...providerEnv(options), ...options.env },
      stdin: options.prompt,
      mark: options.mark,
    });
  }
}
