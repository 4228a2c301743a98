/** A fresh agent root (realpath'd, as the agent resolves it) per test, removed afterwards. */
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type TempRoot = { dir: string; root: string; cleanup(): Promise<void> };

/** `dir` holds `root/` (the agent root) so tests can place files just outside it. */
export async function makeTempRoot(): Promise<TempRoot> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'ribosome-agent-')));
  const root = join(dir, 'root');
  await mkdir(root);
  return { dir, root, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
