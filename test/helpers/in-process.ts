import { join } from 'node:path';
import { type Runtime, startRuntime } from '../../src/host/server/runtime.ts';
import { resolveServerSettings, type ServerSettings } from '../../src/plan/config/server-config.ts';
import { BareEngine } from './bare-engine.ts';
import { tempDir } from './server-process.ts';

/** A runtime inside the test process (no agents), for protocol tests that publish events directly. */
export async function startInProcess(
  settings: Partial<Omit<ServerSettings, 'limits'>> & { limits?: Partial<ServerSettings['limits']> } = {},
  executionDir?: string,
): Promise<Runtime & { dir: string; cleanup(): Promise<void> }> {
  const temp = executionDir ? undefined : tempDir();
  const dir = executionDir ?? temp!.path;
  const resolved = resolveServerSettings({ port: 0, ...settings });
  if (!resolved.ok) throw new Error(resolved.message);
  const runtime = await startRuntime({
    executionDir: dir,
    dataDir: join(dir, 'data'),
    settings: resolved.value,
    createEngine: ({ bus }) => new BareEngine({ bus, plan: { name: 'test', codons: [] } }),
  });
  return {
    ...runtime,
    dir,
    cleanup: async () => {
      await runtime.stop('test done');
      temp?.remove();
    },
  };
}
