/** The agent root's files: a bounded tree of it, and a watcher that reports each change. */
export { buildFileTree, DEFAULT_MAX_TREE_ENTRIES, type FileTree, type FileTreeOptions } from './file-tree.ts';
export { DEFAULT_COLLAPSED, HIDDEN_NAMES } from './paths.ts';
export { createFileWatcher, type FileWatcher } from './watcher.ts';
export type { FileUpdate, FileWatcherLogger, FileWatcherOptions } from './watcher-options.ts';
