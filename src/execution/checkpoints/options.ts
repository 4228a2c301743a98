import { basename, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';

export type CheckpointLogger = Pick<Logger, 'debug' | 'warn'>;

/** Where an execution directory keeps its shadow repository. */
export const STORE_DIR_IN_EXECUTION_DIR = join('.ribosome', 'checkpoints.git');

/** A path inside the work tree as git writes it: no leading `/`, no empty, `.`, `..` or `.git` part. */
const IncludePath = z
  .union([z.string(), z.instanceof(Buffer)])
  .refine(
    (path) =>
      (typeof path === 'string' ? path : path.toString('latin1'))
        .split('/')
        .every((part) => part !== '' && part !== '.' && part !== '..' && part !== '.git'),
    'a relative path inside the work tree, without empty, ".", ".." or ".git" parts',
  );

const Options = z
  .object({
    /** The execution directory: the store is `<executionDir>/.ribosome/checkpoints.git`. Or give gitDir. */
    executionDir: z.string().min(1).optional(),
    /** The shadow repository's directory, instead of executionDir. */
    gitDir: z.string().min(1).optional(),
    /** The directory checkpointed and restored: the agent root. */
    workTree: z.string().min(1),
    /** [maxFileBytes=10 MiB] Files bigger than this are left out of checkpoints, and reported. */
    maxFileBytes: z
      .number()
      .int()
      .nonnegative()
      .default(10 * 1024 * 1024),
    /** [excludes=[]] gitignore patterns applied beside the .gitignore files in the work tree. */
    excludes: z.array(z.string().regex(/^[^\n\r]*$/, 'one pattern per entry')).default([]),
    /**
     * [include=[]] Paths (relative to the work tree, `/`-separated) every checkpoint takes even when a
     * .gitignore matches them: files a workspace repository tracks although ignored (`git add -f`).
     * Each is taken as it is on disk when the checkpoint is made; a missing one is simply not there.
     */
    include: z.array(IncludePath).default([]),
    /** [durable=true] fsync objects and refs, so a checkpoint reported written survives a power cut. */
    durable: z.boolean().default(true),
    /** [gitTimeoutMs=300000] A git command running longer is killed and its operation fails. */
    gitTimeoutMs: z.number().int().positive().default(300_000),
    /** [gitBinary='git'] */
    gitBinary: z.string().min(1).default('git'),
    /** [now=() => new Date()] The clock of checkpoint timestamps (tests fix it). */
    now: z.custom<() => Date>((v) => typeof v === 'function').optional(),
    logger: z.custom<CheckpointLogger>((v) => typeof v === 'object' && v !== null).optional(),
  })
  .refine((o) => (o.executionDir === undefined) !== (o.gitDir === undefined), {
    message: 'give exactly one of executionDir and gitDir',
  });

export type CheckpointStoreOptions = z.input<typeof Options>;

export type ResolvedOptions = Omit<
  z.output<typeof Options>,
  'executionDir' | 'gitDir' | 'now' | 'include'
> & {
  gitDir: string;
  now: () => Date;
  include: Buffer[];
};

/** Validates and completes the options; throws a TypeError for options that cannot work. */
export function resolveOptions(options: CheckpointStoreOptions): ResolvedOptions {
  const parsed = Options.safeParse(options);
  if (!parsed.success) {
    throw new TypeError(`Invalid checkpoint store options: ${z.prettifyError(parsed.error)}`);
  }
  const { executionDir, gitDir, now, include, ...rest } = parsed.data;
  const workTree = resolve(rest.workTree);
  const store = gitDir ? resolve(gitDir) : resolve(executionDir!, STORE_DIR_IN_EXECUTION_DIR);
  if (basename(store) === '.git') {
    throw new TypeError(
      `Refusing gitDir ${store}: a directory named .git is a user's repository, not a store.`,
    );
  }
  if (store === workTree || workTree.startsWith(`${store}/`)) {
    throw new TypeError(`The work tree ${workTree} cannot be inside the store ${store}.`);
  }
  return {
    ...rest,
    workTree,
    gitDir: store,
    now: now ?? (() => new Date()),
    include: include.map((path) => (typeof path === 'string' ? Buffer.from(path) : path)),
  };
}
