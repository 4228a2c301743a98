import { join } from 'node:path';

/** Where an execution keeps its things (DESIGN.md "Execution directory"). */
export function executionLayout(executionDir: string, agentRootName = 'agentRoot') {
  const internal = join(executionDir, '.ribosome');
  return {
    executionDir,
    agentRoot: join(executionDir, agentRootName),
    rigArchive: join(executionDir, 'rigArchive'),
    internal,
    database: join(internal, 'ribosome.db'),
    lockFile: join(internal, 'runtime.lock'),
    logFile: join(internal, 'logs', 'server.log'),
    agentState: join(internal, 'agents'),
  };
}
export type ExecutionLayout = ReturnType<typeof executionLayout>;
