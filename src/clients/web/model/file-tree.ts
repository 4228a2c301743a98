/** The agent root's files as file.updated told them: a tree of the paths seen, with the last content. */

import { DATA_LINK_NAME } from '../../../execution/layout/data-link-name.ts';

/** The data directory's link (`ribosome-data` at the agent root) and what lies under it: not the agent's files. */
export function isDataLinkPath(path: string): boolean {
  const p = path.replace(/^(\.\/|\/)+/, '');
  return p === DATA_LINK_NAME || p.startsWith(`${DATA_LINK_NAME}/`);
}

export type FileEntry = {
  path: string;
  content: string;
  action: 'created' | 'modified' | 'deleted';
  at: string;
};
export type TreeNode = { name: string; path: string; children: TreeNode[]; file?: FileEntry };

export function fileTree(files: ReadonlyMap<string, FileEntry>): TreeNode {
  const root: TreeNode = { name: '', path: '', children: [] };
  for (const file of files.values()) {
    let node = root;
    const parts = file.path.split('/').filter(Boolean);
    parts.forEach((name, i) => {
      const path = parts.slice(0, i + 1).join('/');
      let child = node.children.find((c) => c.name === name);
      if (!child) {
        child = { name, path, children: [] };
        node.children.push(child);
      }
      if (i === parts.length - 1) child.file = file;
      node = child;
    });
  }
  sortTree(root);
  return root;
}

function sortTree(node: TreeNode): void {
  // Folders first, then by name.
  node.children.sort(
    (a, b) => Number(b.children.length > 0) - Number(a.children.length > 0) || a.name.localeCompare(b.name),
  );
  for (const c of node.children) sortTree(c);
}
