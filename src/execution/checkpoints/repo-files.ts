import { isAbsolute, relative, sep } from 'node:path';

/**
 * Contents of the shadow repository's `info/` files: exclude rules of ours (beside the user's
 * .gitignore files, which git reads in the work tree) and attributes that switch off every content
 * conversion, so a checkpoint holds the bytes on disk whatever the user's .gitattributes ask for.
 */

export const INFO_ATTRIBUTES = '* -text !eol -filter -ident !working-tree-encoding\n';

export function infoExclude(options: {
  gitDir: string;
  workTree: string;
  excludes: readonly string[];
}): string {
  const lines = ['# Written by ribosome on every open; edit the store options instead.'];
  const inside = relative(options.workTree, options.gitDir);
  // A store kept inside its own work tree must not check itself in.
  if (inside && !inside.startsWith('..') && !isAbsolute(inside)) {
    const pattern = anchoredPattern(inside.split(sep).join('/'));
    if (pattern) lines.push(`${pattern}/`);
  }
  lines.push(...options.excludes);
  return `${lines.join('\n')}\n`;
}

/** A gitignore pattern matching exactly `path` (relative, `/`-separated), or null if none can. */
export function anchoredPattern(path: string): string | null {
  if (path === '' || /[\n\r]/.test(path)) return null;
  return `/${path.replace(/[\\*?[ !#]/g, (c) => `\\${c}`)}`;
}
