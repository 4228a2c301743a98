import { fail, ok, type StoreResult } from './errors.ts';

/**
 * One branch per run: `run/<runId>`. Run ids are free text to the engine (a timestamp holds `:`, which
 * git forbids in ref names), so every byte outside [A-Za-z0-9_-] is percent-encoded: the branch name is
 * always a valid ref, and decoding gives the id back.
 */

export const RUN_BRANCH_PREFIX = 'run/';
export const RUN_REF_PREFIX = `refs/heads/${RUN_BRANCH_PREFIX}`;
// A loose ref is a file: its name must fit a file name (255 bytes) with room to spare.
const MAX_ENCODED_LENGTH = 240;
const SAFE = /[A-Za-z0-9_-]/;

export function runBranchName(runId: string): StoreResult<string> {
  let encoded = '';
  for (const char of runId) {
    if (SAFE.test(char)) encoded += char;
    else
      for (const byte of Buffer.from(char, 'utf8'))
        encoded += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  if (encoded.length === 0 || encoded.length > MAX_ENCODED_LENGTH) {
    return fail('INVALID_INPUT', `Run id ${JSON.stringify(runId)} is empty or too long for a branch name.`);
  }
  return ok(`${RUN_BRANCH_PREFIX}${encoded}`);
}

/** The run id of a branch name (`run/...` or `refs/heads/run/...`), or null for any other branch. */
export function runIdOfBranch(branch: string): string | null {
  const name = branch.startsWith('refs/heads/') ? branch.slice('refs/heads/'.length) : branch;
  if (!name.startsWith(RUN_BRANCH_PREFIX)) return null;
  try {
    const runId = decodeURIComponent(name.slice(RUN_BRANCH_PREFIX.length));
    return runId.length > 0 ? runId : null;
  } catch {
    return null;
  }
}
