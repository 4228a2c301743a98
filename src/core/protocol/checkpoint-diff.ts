import { z } from 'zod';
import { ours } from './extension.ts';

/**
 * Ours: `checkpoint.diff`, the changes between two checkpoints, file by file with their hunks
 * (docs/protocol.md#protocol-extensions). Answered to the asker only; bounded (DIFF_LIMITS), truncation marked.
 */

export const DIFF_LIMITS = {
  /** Diff text read from git in total; past it the answer is cut and marked truncated. */
  maxBytes: 2 * 1024 * 1024,
  /** Files listed at most; past it the answer is marked truncated. */
  maxFiles: 200,
  /** Hunk lines at most (each costs some 30 bytes of JSON besides its text): the answer stays small. */
  maxLines: 50_000,
  /** contextLines at most (default 3, as git's). */
  maxContextLines: 1000,
} as const;

const Sha = z.string().regex(/^[0-9a-fA-F]{4,64}$/, 'a git SHA (4-64 hex digits)');

export const CheckpointDiffRequest = ours(
  z.object({
    from: Sha,
    to: Sha,
    /** Only this file, or the files under this directory (relative to the agent root). */
    path: z.string().min(1).max(4096).optional(),
    /** Unchanged lines around each change (default 3). */
    contextLines: z.number().int().min(0).max(DIFF_LIMITS.maxContextLines).default(3),
  }),
  'The changes between two checkpoints (answered with checkpoint.diff to the asker only).',
);
export type CheckpointDiffRequest = z.infer<typeof CheckpointDiffRequest>;

export const DiffLine = z.object({ kind: z.enum(['context', 'add', 'del']), text: z.string() });
export type DiffLine = z.infer<typeof DiffLine>;

export const DiffHunk = z.object({
  oldStart: z.number().int(),
  oldLines: z.number().int(),
  newStart: z.number().int(),
  newLines: z.number().int(),
  lines: z.array(DiffLine),
});
export type DiffHunk = z.infer<typeof DiffHunk>;

export const DiffFile = z.object({
  path: z.string(),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  /** The path before a rename. */
  oldPath: z.string().optional(),
  /** A binary file has no hunks. */
  binary: z.boolean(),
  additions: z.number().int(),
  deletions: z.number().int(),
  hunks: z.array(DiffHunk),
  /** Its hunks were cut at the size limit. */
  truncated: z.boolean().optional(),
});
export type DiffFile = z.infer<typeof DiffFile>;

export const CheckpointDiffData = ours(
  z.object({
    /** The full SHAs the request's named. */
    from: z.string(),
    to: z.string(),
    files: z.array(DiffFile),
    /** Files or lines were left out (limitBytes, the file or the line limit reached). */
    truncated: z.boolean(),
    limitBytes: z.number().int(),
  }),
  'The answer to checkpoint.diff: the changes from one checkpoint to another, bounded.',
);
export type CheckpointDiffData = z.infer<typeof CheckpointDiffData>;
