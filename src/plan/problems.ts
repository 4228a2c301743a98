import { z } from 'zod';
import type { PathSegment } from '../core/validation/path.ts';

/** Problems found while loading a plan: values with a stable code, a place in a file, and a fix hint. */

export const PlanProblemCode = z.enum([
  // Reading and parsing a file.
  'FILE_NOT_FOUND',
  'FILE_UNREADABLE',
  'YAML_SYNTAX',
  'JSON_SYNTAX',
  'EMPTY_FILE',
  // Shape of a value (from the zod schemas).
  'MISSING_FIELD',
  'WRONG_TYPE',
  'UNKNOWN_FIELD',
  'INVALID_VALUE',
  'INVALID_ID',
  'INVALID_REGEX',
  'PATH_ESCAPES',
  // Codons and loops.
  'PROMPT_CONFLICT',
  'PROMPT_MISSING',
  'PROMPT_EMPTY',
  'FRONT_MATTER_INVALID',
  'DUPLICATE_ID',
  'CONTINUATION_WITHOUT_PREVIOUS',
  'CONTINUATION_AGENT_MISMATCH',
  'NESTED_LOOP',
  // Unattended runs.
  'BUDGET_EMPTY',
  'BACKOFF_RANGE',
  'UNTIL_WITHOUT_VERIFY',
  'INVALID_URL',
  'FIELD_HAS_NO_EFFECT',
  // Sentinels.
  'UNKNOWN_SENTINEL',
  'DUPLICATE_SENTINEL',
  'SENTINEL_ID_MISMATCH',
  'SENTINEL_FILE_NOT_FOUND',
  'SENTINEL_FILE_INVALID',
  'UNKNOWN_EVENT_TYPE',
  'ACTION_WHEN_MISMATCH',
  'UNKNOWN_OUTPUT_FIELD',
  'INVALID_TEMPLATE',
  // The sandbox's paths (docs/agents.md#the-sandbox).
  'SANDBOX_PATH_INVALID',
  'SANDBOX_WRITE_TOO_WIDE',
  'SANDBOX_PATH_IN_HISTORY',
  'SANDBOX_HIDES_AGENT_ROOT',
  'SANDBOX_PATH_TWICE',
  // MCP servers (docs/mcp.md).
  'MCP_SECRET_UNSET',
  'MCP_SECRET_IN_PLAN',
  'MCP_NOT_SUPPORTED',
]);
export type PlanProblemCode = z.infer<typeof PlanProblemCode>;

export const ProblemSeverity = z
  .enum(['error', 'warning'])
  .describe('error: the plan cannot run. warning: it runs, but something will not work as written.');
export type ProblemSeverity = z.infer<typeof ProblemSeverity>;

export const PlanProblem = z.object({
  code: PlanProblemCode,
  severity: ProblemSeverity,
  file: z
    .string()
    .describe('Absolute path of the file the problem is in (the plan, a prompt or a sentinel file).'),
  path: z.string().describe('Where in that file, e.g. codons[2].prompt; empty for the file as a whole.'),
  line: z.number().int().min(1).optional().describe('1-based line, when known.'),
  column: z.number().int().min(1).optional().describe('1-based column, when known.'),
  message: z.string(),
  hint: z.string().describe('How to fix it.'),
});
export type PlanProblem = z.infer<typeof PlanProblem>;

// Paths are shared with the protocol's command checks.
export { formatPath, type PathSegment } from '../core/validation/path.ts';

/** A problem before it is placed in its file: the path is still segments, the position maybe unknown. */
export type ProblemDraft = Pick<PlanProblem, 'code' | 'message' | 'hint' | 'line' | 'column'> & {
  path: PathSegment[];
  /** Default error. */
  severity?: ProblemSeverity;
  /** Point at the key of the last path segment rather than its value (unknown fields, bad map keys). */
  pointAt?: 'key' | 'value';
};

export function hasErrors(problems: readonly PlanProblem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}

/** Files first in the order given, then by position; problems without a position lead their file. */
export function sortProblems(problems: readonly PlanProblem[], fileOrder: readonly string[]): PlanProblem[] {
  const rank = (file: string) => {
    const index = fileOrder.indexOf(file);
    return index === -1 ? fileOrder.length : index;
  };
  return [...problems].sort(
    (a, b) =>
      rank(a.file) - rank(b.file) ||
      a.file.localeCompare(b.file) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  );
}
