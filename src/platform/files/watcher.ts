import { watch } from 'chokidar';
import type { FileNode } from '../../core/protocol/index.ts';
import { createCoalescedTask } from './coalesced-task.ts';
import { buildFileTree } from './file-tree.ts';
import { baseName, isExcludedPath, toRelativePath } from './paths.ts';
import { readFileContent } from './read-content.ts';
import {
  type FileUpdate,
  type FileWatcherLogger,
  type FileWatcherOptions,
  resolveWatcherOptions,
} from './watcher-options.ts';

export type FileWatcher = {
  /** Resolves once the watch is live and the first tree is built (also on close, so it never hangs). */
  ready: Promise<void>;
  /** The latest tree built: [] before `ready`. Shared, not copied: callers must not change it. */
  tree(): FileNode[];
  /** Stops the watch; no callback runs once this is called. */
  close(): Promise<void>;
};

const ACTIONS = { add: 'created', change: 'modified', unlink: 'deleted' } as const;

/**
 * Watches the agent root: every file created, modified or deleted becomes one `onFileUpdated` (its
 * text, or '' for binary, oversized, unreadable and deleted files), and each burst of changes one
 * `onTreeUpdated` with the rebuilt tree. `.git` and `.ribosome` (anywhere) and the insides of
 * collapsed directories are not watched at all. Failures are logged, never thrown.
 */
export function createFileWatcher(options: FileWatcherOptions): FileWatcher {
  const o = resolveWatcherOptions(options);
  const { root, logger } = o;
  const collapsed = new Set(o.collapsed);
  const treeOptions = { maxEntries: o.maxTreeEntries, collapsed: o.collapsed };

  let closed = false;
  let latestTree: FileNode[] = [];
  let latestTreeJson = '[]';
  let treeTruncated = false;
  // Builds may overlap only between the first one and a refresh: the newer start wins.
  let buildsStarted = 0;
  let newestApplied = -1;

  async function rebuildTree(announce: boolean): Promise<void> {
    const build = buildsStarted++;
    const { tree, truncated } = await buildFileTree(root, treeOptions);
    if (closed || build < newestApplied) return;
    newestApplied = build;
    if (truncated !== treeTruncated) {
      treeTruncated = truncated;
      if (truncated) logger?.warn({ root, maxEntries: o.maxTreeEntries }, 'file tree truncated');
    }
    const json = JSON.stringify(tree);
    if (json === latestTreeJson) return;
    latestTree = tree;
    latestTreeJson = json;
    if (announce) notify(logger, 'onTreeUpdated', () => o.onTreeUpdated(tree));
  }

  const treeRefresh = createCoalescedTask({
    delayMs: o.treeDebounceMs,
    maxWaitMs: 4 * o.treeDebounceMs,
    task: () => rebuildTree(true),
    onError: (err) => logger?.warn({ err, root }, 'file tree rebuild failed'),
  });

  // File events are delivered one at a time in the order chokidar saw them, although reading a
  // file's content is asynchronous: a quick delete never overtakes the change before it.
  let deliveries: Promise<void> = Promise.resolve();
  function deliver(absolute: string, update: Omit<FileUpdate, 'content'>): void {
    deliveries = deliveries.then(async () => {
      if (closed) return;
      let content = '';
      if (update.action !== 'deleted') {
        const read = await readFileContent(absolute, o.maxContentBytes);
        if (closed) return;
        content = read.content;
        if (read.omitted)
          logger?.debug({ path: update.path, omitted: read.omitted }, 'file content left out');
      }
      notify(logger, 'onFileUpdated', () => o.onFileUpdated({ ...update, content }));
    });
  }

  const watcher = watch(root, {
    ignoreInitial: true,
    followSymlinks: false,
    // Chokidar polls the size until it holds still: no half-written file is reported.
    awaitWriteFinish: {
      stabilityThreshold: o.writeStabilityMs,
      pollInterval: Math.min(20, o.writeStabilityMs),
    },
    ignored: (path: string) => {
      const rel = toRelativePath(root, path);
      return rel !== undefined && isExcludedPath(rel, collapsed);
    },
  });

  // Chokidar (5.0) reports each symlink its first scan meets as added, ignoreInitial or not: every
  // start would report the agent root's links (the data directory's among them) as created.
  let scanned = false;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  watcher.once('ready', () => {
    scanned = true;
    rebuildTree(false)
      .catch((err: unknown) => logger?.warn({ err, root }, 'file tree build failed'))
      .finally(markReady);
  });
  watcher.on('error', (err) => logger?.warn({ err, root }, 'file watcher error'));
  watcher.on('all', (event, absolute) => {
    if (closed) return;
    const rel = toRelativePath(root, absolute);
    if (rel === undefined) return;
    if (!scanned) return;
    if (rel !== '' && (event === 'add' || event === 'change' || event === 'unlink')) {
      deliver(absolute, { path: rel, filename: baseName(rel), action: ACTIONS[event] });
    }
    // Every event changes the tree: its shape, or a lastModified.
    treeRefresh.schedule();
  });

  let closing: Promise<void> | undefined;
  return {
    ready,
    tree: () => latestTree,
    close() {
      closing ??= (async () => {
        closed = true;
        markReady();
        await treeRefresh.close();
        await watcher
          .close()
          .catch((err: unknown) => logger?.warn({ err, root }, 'file watcher close failed'));
        await deliveries;
      })();
      return closing;
    },
  };
}

/** Calls a listener so that neither a throw nor a rejected promise from it escapes. */
function notify(logger: FileWatcherLogger | undefined, name: string, call: () => unknown): void {
  try {
    const result = call();
    if (result instanceof Promise) {
      result.catch((err: unknown) => logger?.warn({ err, listener: name }, 'file watcher listener failed'));
    }
  } catch (err) {
    logger?.warn({ err, listener: name }, 'file watcher listener failed');
  }
}
