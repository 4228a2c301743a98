import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { onTestFinished } from 'vitest';
import { type LoadPlanResult, loadPlan } from '../../src/plan/index.ts';
import type { PlanProblem } from '../../src/plan/problems.ts';

/** Writes files (path -> text) into a fresh temporary directory, removed when the test ends. */
export async function tempFiles(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ribosome-plan-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

/** Loads `plan.yaml` written with the given text (and any other files) from a temporary directory. */
export async function loadText(
  plan: string,
  files: Record<string, string> = {},
): Promise<LoadPlanResult & { dir: string }> {
  const dir = await tempFiles({ 'plan.yaml': plan, ...files });
  return { ...(await loadPlan(join(dir, 'plan.yaml'))), dir };
}

/** Every problem of a plan (errors, or the warnings of a plan that loaded). */
export async function problemsOf(plan: string, files: Record<string, string> = {}): Promise<PlanProblem[]> {
  const result = await loadText(plan, files);
  return result.ok ? result.warnings : result.problems;
}

/** Lines joined with "\n": keeps YAML fixtures readable and their line numbers obvious. */
export function yaml(...lines: string[]): string {
  return `${lines.join('\n')}\n`;
}
