import { relative, resolve } from 'node:path';
import type { PlanProblem } from './problems.ts';

/**
 * Problems for a terminal, one per line in the `file:line:column` form editors and terminals link:
 *
 *   plans/demo.yaml:7:9 - error DUPLICATE_ID at codons[1].id: Id "a" is already used by codons[0].
 *     hint: Rename one of them: ...
 *
 * `file` is the plan path as the user gave it; other files are shown relative to the working directory.
 */
export function formatProblems(problems: readonly PlanProblem[], file: string, cwd = process.cwd()): string {
  const planFile = resolve(cwd, file);
  const lines: string[] = [];
  for (const problem of problems) {
    const shown = problem.file === planFile ? file : relative(cwd, problem.file) || problem.file;
    const place = problem.line === undefined ? shown : `${shown}:${problem.line}:${problem.column ?? 1}`;
    const at = problem.path === '' ? '' : ` at ${problem.path}`;
    lines.push(`${place} - ${problem.severity} ${problem.code}${at}: ${problem.message}`);
    lines.push(`  hint: ${problem.hint}`);
  }
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.length - errors;
  if (problems.length > 0) lines.push(`${count(errors, 'error')}, ${count(warnings, 'warning')}`);
  return lines.join('\n');
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
