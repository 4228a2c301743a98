import { isAbsolute, resolve } from 'node:path';

/** `--workspace PATH[@REF]` / plan `workspace:`: a git repository and, optionally, the ref to start from. */
export type WorkspaceSpec = { path: string; ref?: string };

/**
 * Parses `PATH[@REF]`. The last `@` separates the ref, so a path holding an `@` is written with an
 * explicit ref (`/home/me@work/repo@HEAD`). A relative PATH starts at `baseDir` (the plan's folder
 * for the plan field, the current directory for the option).
 */
export function parseWorkspaceSpec(
  text: string,
  baseDir: string,
): { ok: true; value: WorkspaceSpec } | { ok: false; message: string } {
  const at = text.lastIndexOf('@');
  const path = at > 0 ? text.slice(0, at) : text;
  const ref = at > 0 ? text.slice(at + 1) : undefined;
  if (path.trim() === '') return { ok: false, message: `workspace "${text}" names no repository path` };
  if (ref !== undefined && (ref === '' || /\s/.test(ref) || ref.startsWith('-'))) {
    return {
      ok: false,
      message: `workspace "${text}": the ref after @ must be a branch, tag or commit (no spaces, not starting with -)`,
    };
  }
  const absolute = isAbsolute(path) ? resolve(path) : resolve(baseDir, path);
  return { ok: true, value: ref === undefined ? { path: absolute } : { path: absolute, ref } };
}

/** Whether a workspace given now is the one recorded (same repository and ref as written). */
export function sameWorkspace(spec: WorkspaceSpec, recorded: { repo: string; ref: string | null }): boolean {
  return spec.path === recorded.repo && (spec.ref ?? null) === recorded.ref;
}
