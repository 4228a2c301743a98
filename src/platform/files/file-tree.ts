import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { FileNode } from '../../core/protocol/index.ts';
import { childPath, DEFAULT_COLLAPSED, HIDDEN_NAMES } from './paths.ts';
import { type NamedEntry, takeInOrder } from './tree-order.ts';

/** [maxEntries=5000] */
export const DEFAULT_MAX_TREE_ENTRIES = 5000;

export type FileTreeOptions = {
  /** [maxEntries=5000] The most nodes in the tree, all depths counted; past it the tree is truncated. */
  maxEntries?: number;
  /** [collapsed=['node_modules']] Directory names, at any depth, shown with no children and not entered. */
  collapsed?: readonly string[];
};

export type FileTree = { tree: FileNode[]; truncated: boolean };

type PendingDir = { absolute: string; path: string; children: FileNode[] };

/**
 * The tree of the agent root: paths relative to it with `/` separators, directories first then names,
 * `lastModified` in ISO 8601. `.git` and `.ribosome` never appear; symlinks appear as leaves and are
 * never followed; a directory that cannot be read appears with no children.
 *
 * Walked breadth first, so when `maxEntries` cuts the tree short it keeps the top levels (what a person
 * looks at first), and the same directory contents always give the same truncated tree.
 */
export async function buildFileTree(root: string, options: FileTreeOptions = {}): Promise<FileTree> {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_TREE_ENTRIES;
  if (!Number.isInteger(maxEntries) || maxEntries < 0) {
    throw new TypeError(`maxEntries must be a non-negative integer, got ${maxEntries}`);
  }
  const collapsed = new Set(options.collapsed ?? DEFAULT_COLLAPSED);
  const tree: FileNode[] = [];
  let budget = maxEntries;
  let level: PendingDir[] = [{ absolute: resolve(root), path: '', children: tree }];
  while (level.length > 0) {
    const nextLevel: PendingDir[] = [];
    for (const dir of level) {
      const { kept, truncated } = takeInOrder(await visibleEntries(dir.absolute), budget);
      budget -= kept.length;
      const nodes = await Promise.all(kept.map((entry) => toNode(dir, entry)));
      dir.children.push(...nodes);
      if (truncated) return { tree, truncated: true };
      for (const node of nodes) {
        if (node.isDirectory && !collapsed.has(node.name)) {
          nextLevel.push({
            absolute: join(dir.absolute, node.name),
            path: node.path,
            children: node.children,
          });
        }
      }
    }
    level = nextLevel;
  }
  return { tree, truncated: false };
}

/** The entries of a directory the tree may show; none when it cannot be read (gone, no permission). */
async function visibleEntries(absolute: string): Promise<NamedEntry[]> {
  let dirents: Dirent[];
  try {
    dirents = await readdir(absolute, { withFileTypes: true });
  } catch {
    return [];
  }
  const entries: NamedEntry[] = [];
  // Dirent types come from lstat semantics: a symlink to a directory is not a directory here.
  for (const d of dirents)
    if (!HIDDEN_NAMES.has(d.name)) entries.push({ name: d.name, isDirectory: d.isDirectory() });
  return entries;
}

async function toNode(parent: PendingDir, entry: NamedEntry): Promise<FileNode> {
  const node: FileNode = {
    name: entry.name,
    path: childPath(parent.path, entry.name),
    isDirectory: entry.isDirectory,
    children: [],
  };
  try {
    node.lastModified = (await lstat(join(parent.absolute, entry.name))).mtime.toISOString();
  } catch {
    // Gone since the listing: still shown, as it was there a moment ago; the watcher will refresh.
  }
  return node;
}
