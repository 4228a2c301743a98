import { resolve } from 'node:path';

/** Where `ribosome export` puts the result. */
export type ExportTarget =
  | { kind: 'branch'; name: string; repo?: string; force: boolean }
  | { kind: 'patch'; file: string }
  | { kind: 'dir'; dir: string };

export type ExportRequest = { executionDir: string; target: ExportTarget };

export type ExportFlags = {
  execution?: string;
  toBranch?: string;
  repo?: string;
  force?: boolean;
  patch?: string;
  dir?: string;
};

/**
 * The command line of `ribosome export`, checked: one execution directory and exactly one of
 * --to-branch, --patch, --dir; --repo and --force only with --to-branch. Paths resolve from `cwd`.
 */
export function checkExportArgs(
  flags: ExportFlags,
  cwd: string,
): { ok: true; value: ExportRequest } | { ok: false; message: string } {
  if (!flags.execution) return { ok: false, message: 'export: --execution DIR is required' };
  const chosen = [flags.toBranch, flags.patch, flags.dir].filter((v) => v !== undefined);
  if (chosen.length !== 1) {
    return { ok: false, message: 'export: give exactly one of --to-branch NAME, --patch FILE or --dir DIR' };
  }
  if (flags.toBranch === undefined && (flags.repo !== undefined || flags.force)) {
    return { ok: false, message: 'export: --repo and --force go with --to-branch only' };
  }
  const executionDir = resolve(cwd, flags.execution);
  if (flags.toBranch !== undefined) {
    const problem = branchNameProblem(flags.toBranch);
    if (problem) return { ok: false, message: `export: --to-branch "${flags.toBranch}": ${problem}` };
    return {
      ok: true,
      value: {
        executionDir,
        target: {
          kind: 'branch',
          name: flags.toBranch,
          force: flags.force === true,
          ...(flags.repo === undefined ? {} : { repo: resolve(cwd, flags.repo) }),
        },
      },
    };
  }
  if (flags.patch !== undefined) {
    if (flags.patch === '') return { ok: false, message: 'export: --patch needs a file name' };
    return { ok: true, value: { executionDir, target: { kind: 'patch', file: resolve(cwd, flags.patch) } } };
  }
  if (flags.dir === '') return { ok: false, message: 'export: --dir needs a directory' };
  return { ok: true, value: { executionDir, target: { kind: 'dir', dir: resolve(cwd, flags.dir ?? '') } } };
}

/**
 * Names git keeps for refs of its own at the top of a repository (HEAD, ORIG_HEAD, FETCH_HEAD,
 * MERGE_HEAD, CHERRY_PICK_HEAD, ...; git's pseudoref syntax): a branch of that name would be
 * `refs/heads/HEAD`, which git itself shadows with the special ref wherever the short name is used.
 */
const SPECIAL_REF = /^[A-Z_]*HEAD$/;
const SPECIAL_REFS = new Set([
  'AUTO_MERGE',
  'BISECT_EXPECTED_REV',
  'MERGE_AUTOSTASH',
  'NOTES_MERGE_PARTIAL',
  'NOTES_MERGE_REF',
]);

/**
 * Why `name` cannot be the branch: what `git check-ref-format --branch` refuses, and the names of
 * git's special refs (`SPECIAL_REF`), or undefined. Pure.
 */
export function branchNameProblem(name: string): string | undefined {
  if (name === '' || name === '@') return 'is not a branch name';
  if (SPECIAL_REF.test(name) || SPECIAL_REFS.has(name))
    return 'is the name of a special git ref (like HEAD, ORIG_HEAD or FETCH_HEAD), not a branch; choose another name';
  if (name.startsWith('-')) return 'must not start with -';
  if (name.startsWith('refs/')) return 'name the branch without refs/ (e.g. result)';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what git forbids
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name))
    return 'must not hold spaces, control characters or ~ ^ : ? * [ \\';
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return 'must not hold .., @{ or //';
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) {
    return 'must not start or end with /, nor end with .';
  }
  const parts = name.split('/');
  if (parts.some((part) => part.startsWith('.'))) return 'no part may start with .';
  if (parts.some((part) => part.endsWith('.lock'))) return 'no part may end with .lock';
  return undefined;
}
