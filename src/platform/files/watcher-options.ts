import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { EventInput, FileNode } from '../../core/protocol/index.ts';
import { DEFAULT_MAX_TREE_ENTRIES } from './file-tree.ts';
import { DEFAULT_COLLAPSED } from './paths.ts';

export type FileWatcherLogger = Pick<Logger, 'debug' | 'warn'>;
export type FileUpdate = EventInput<'file.updated'>;

const isFunction = (v: unknown) => typeof v === 'function';

const Options = z.object({
  /** The directory watched: the agent root. Relative paths resolve against the process's cwd. */
  root: z.string().min(1),
  /** Each file created, modified or deleted, in the order seen. A returned promise's rejection is logged. */
  onFileUpdated: z.custom<(data: FileUpdate) => unknown>(isFunction, 'onFileUpdated must be a function'),
  /** The new tree after a burst of changes settles; not called when the tree came out the same. */
  onTreeUpdated: z.custom<(tree: FileNode[]) => unknown>(isFunction, 'onTreeUpdated must be a function'),
  /** [maxContentBytes=262144] Larger files are reported with content ''. */
  maxContentBytes: z
    .number()
    .int()
    .nonnegative()
    .default(256 * 1024),
  /** [treeDebounceMs=250] Quiet time before the tree is rebuilt; a steady stream rebuilds every 4x this. */
  treeDebounceMs: z.number().int().nonnegative().default(250),
  /** [writeStabilityMs=50] A file's size must hold this long before it is reported (no half-written files). */
  writeStabilityMs: z.number().int().positive().default(50),
  /** [maxTreeEntries=5000] See buildFileTree's maxEntries. */
  maxTreeEntries: z.number().int().nonnegative().default(DEFAULT_MAX_TREE_ENTRIES),
  /** [collapsed=['node_modules']] Directory names shown in the tree but neither entered nor watched inside. */
  collapsed: z
    .array(z.string().regex(/^[^/\\]+$/, 'a directory name, not a path'))
    .default([...DEFAULT_COLLAPSED]),
  logger: z.custom<FileWatcherLogger>((v) => typeof v === 'object' && v !== null).optional(),
});

export type FileWatcherOptions = z.input<typeof Options>;
export type ResolvedWatcherOptions = z.output<typeof Options>;

/** Validates and completes the options; throws a TypeError for options that cannot work. */
export function resolveWatcherOptions(options: FileWatcherOptions): ResolvedWatcherOptions {
  const parsed = Options.safeParse(options);
  if (!parsed.success) {
    throw new TypeError(`Invalid file watcher options: ${z.prettifyError(parsed.error)}`);
  }
  return { ...parsed.data, root: resolve(parsed.data.root) };
}
