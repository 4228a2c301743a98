/**
 * The worktree that has `ref` checked out, read from `git worktree list --porcelain` (one block per
 * worktree: `worktree <path>`, then `HEAD`, `branch <ref>`, `detached`, `bare`...), or undefined.
 * git refuses to move such a branch (`branch -f`), as its work tree and index would no longer match it.
 */
export function worktreeWithBranch(porcelain: string, ref: string): string | undefined {
  let worktree: string | undefined;
  for (const line of porcelain.split('\n')) {
    if (line.startsWith('worktree ')) worktree = line.slice('worktree '.length);
    else if (line === '') worktree = undefined;
    else if (line === `branch ${ref}` && worktree !== undefined) return worktree;
  }
  return undefined;
}
