import { isAbsolute, relative, sep } from 'node:path';

/**
 * Names never shown or watched, at any depth: a user's own repositories (`.git`) and Ribosome's
 * own state (`.ribosome`, whose shadow repository has the agent root as its work tree).
 */
export const HIDDEN_NAMES: ReadonlySet<string> = new Set(['.git', '.ribosome']);

/** [collapsed=['node_modules']] Directories shown as nodes but never entered or watched inside. */
export const DEFAULT_COLLAPSED: readonly string[] = ['node_modules'];

/**
 * The path of `absolute` relative to `root`, with `/` separators whatever the platform ('' for the
 * root itself), or undefined when it lies outside the root.
 */
export function toRelativePath(root: string, absolute: string): string | undefined {
  const rel = relative(root, absolute);
  if (rel === '') return '';
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return sep === '/' ? rel : rel.split(sep).join('/');
}

/** The relative path of a child entry of the directory at relative path `parent`. */
export function childPath(parent: string, name: string): string {
  return parent === '' ? name : `${parent}/${name}`;
}

/** The last segment of a relative `/`-separated path. */
export function baseName(relPath: string): string {
  return relPath.slice(relPath.lastIndexOf('/') + 1);
}

/**
 * Whether a relative path is left out of both the tree and the watch: it is (or lies inside) a
 * hidden directory, or lies inside a collapsed one. A collapsed directory itself is kept, so its
 * appearing and vanishing still reach the tree.
 */
export function isExcludedPath(relPath: string, collapsed: ReadonlySet<string>): boolean {
  if (relPath === '') return false;
  const segments = relPath.split('/');
  const last = segments.length - 1;
  for (let i = 0; i <= last; i++) {
    const segment = segments[i]!;
    if (HIDDEN_NAMES.has(segment)) return true;
    if (i < last && collapsed.has(segment)) return true;
  }
  return false;
}
