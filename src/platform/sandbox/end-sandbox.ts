import { descendants, isAlive, killTree } from '../processes/process-tree.ts';

/**
 * Stops a sandboxed process started as `bwrap ...` (pid: the outer bwrap, leader of its group).
 * SIGTERM goes to what runs inside only: the outer bwrap dies of one at once, and its
 * --die-with-parent would SIGKILL the agent before it could finish (save its session, print its
 * result). The namespace's init (the inner bwrap) ignores it; the agent ends as it chooses, and with
 * it the init and every process of the namespace. Whatever is left after `graceMs`: killTree.
 */
export async function endSandbox(pid: number, graceMs: number): Promise<void> {
  for (const inside of descendants(pid)) {
    try {
      process.kill(inside, 'SIGTERM');
    } catch {
      // Gone meanwhile.
    }
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && isAlive(pid)) await new Promise((r) => setTimeout(r, 25));
  if (isAlive(pid)) await killTree(pid, 0);
}
