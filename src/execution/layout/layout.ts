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
    /** Where the scripted provider's tracks are (--scripted-provider): a restart goes on from there. */
    scriptedProvider: join(internal, 'scripted-provider.json'),
    /** Written when the server found its history deleted or replaced under it: a restart refuses. */
    historyLost: join(internal, 'history-lost'),
  };
}
export type ExecutionLayout = ReturnType<typeof executionLayout>;
