/**
 * The data directory (`--data`) and the output directory (`--output`) of a start, checked before
 * anything starts by where they really lead (every symlink followed, dangling ones too): the data
 * directory neither inside the agent root (its files would be checkpointed and rolled back) nor
 * holding the execution directory (every write of the agent would be a write to the read-only data),
 * the output directory not inside the agent root, and neither an existing file. Pure core
 * (`runDirsProblem`) and its shell (`inspectRunDirs`).
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { confinePath, isInside } from '../../platform/confine/index.ts';

/** A directory as given (absolute) and as it really is. */
export type InspectedDir = {
  path: string;
  /** Where it leads, every symlink followed. */
  real: string;
  /** What stands there: nothing yet, a directory, or something else (a file). */
  kind: 'missing' | 'directory' | 'other';
};

export type RunDirs<T> = { executionDir: T; agentRoot: T; dataDir: T; outputDir: T };

/** Why the start cannot use these directories, or undefined. */
export function runDirsProblem(dirs: RunDirs<InspectedDir>): string | undefined {
  const { executionDir, agentRoot, dataDir, outputDir } = dirs;
  for (const [flag, dir] of [
    ['--data', dataDir],
    ['--output', outputDir],
  ] as const) {
    if (dir.kind === 'other')
      return `${flag} ${dir.path} is a file, not a directory: name a directory (it is created when missing)`;
  }
  const via = (dir: InspectedDir) => (dir.real === dir.path ? '' : ` (it leads to ${dir.real})`);
  if (isInside(agentRoot.real, dataDir.real)) {
    return `--data ${dataDir.path}${via(dataDir)} is inside the agent root ${agentRoot.path}: choose a --data directory outside it`;
  }
  for (const inner of [executionDir, agentRoot]) {
    if (!isInside(dataDir.real, inner.real)) continue;
    const what = inner === executionDir ? 'the execution directory' : 'the agent root';
    return `--data ${dataDir.path}${via(dataDir)} contains ${what} ${inner.path}: the data directory is read-only for the agent, so it could write nothing; choose a --data directory that does not hold the execution directory (or an --execution outside it)`;
  }
  if (isInside(agentRoot.real, outputDir.real)) {
    return `--output ${outputDir.path}${via(outputDir)} is inside the agent root ${agentRoot.path}: choose a directory outside it`;
  }
  return undefined;
}

/** Where `path` really leads and what stands there (a link loop leaves the path as given). */
export async function inspectDir(path: string): Promise<InspectedDir> {
  const absolute = resolve(path);
  const confined = await confinePath('/', absolute);
  const real = confined.ok ? confined.real : absolute;
  const info = await stat(real).catch(() => undefined);
  return {
    path: absolute,
    real,
    kind: info === undefined ? 'missing' : info.isDirectory() ? 'directory' : 'other',
  };
}

export async function inspectRunDirs(dirs: RunDirs<string>): Promise<RunDirs<InspectedDir>> {
  const [executionDir, agentRoot, dataDir, outputDir] = await Promise.all(
    [dirs.executionDir, dirs.agentRoot, dirs.dataDir, dirs.outputDir].map(inspectDir),
  );
  return { executionDir: executionDir!, agentRoot: agentRoot!, dataDir: dataDir!, outputDir: outputDir! };
}
