import { resolve } from 'node:path';
import { hasErrors, type PlanProblem, sortProblems } from '../../plan/problems.ts';
import { readSourceFile } from '../../plan/source-file.ts';
import { issuesToDrafts } from '../../plan/zod-issues.ts';
import { ScriptSchema } from './script-schema.ts';

export type ScriptFileCheck =
  | { ok: true; tracks: number; turns: number; problems: PlanProblem[] }
  | { ok: false; problems: PlanProblem[] };

/**
 * `ribosome validate` of a scripted-provider script (script-schema.ts): every problem at its line and
 * column, as a plan's are. `tracks` and `turns`: how many tracks and default-track turns it has.
 */
/** Scripts have no JSON Schema in schema/: their format is examples/scripts/README.md. */
const SCHEMA_HINT = 'See the description of this field in schema/ for the allowed values.';
const pointToFormat = (p: PlanProblem): PlanProblem =>
  p.hint === SCHEMA_HINT ? { ...p, hint: 'See the script format in examples/scripts/README.md.' } : p;

export async function checkScriptFile(path: string): Promise<ScriptFileCheck> {
  const file = resolve(path);
  const read = await readSourceFile(file, 'script');
  // Empty (or comments only), a script answers every request with its default whenExhausted.
  if (!read.ok && read.problems.every((p) => p.code === 'EMPTY_FILE'))
    return { ok: true, tracks: 0, turns: 0, problems: [] };
  if (!read.ok) return { ok: false, problems: read.problems };
  const { source } = read;
  const parsed = ScriptSchema.safeParse(source.data);
  const drafts = parsed.success ? [] : issuesToDrafts(parsed.error.issues, ScriptSchema, source.data);
  const problems = sortProblems([...read.warnings, ...drafts.map(source.locate)].map(pointToFormat), [file]);
  if (!parsed.success || hasErrors(problems)) return { ok: false, problems };
  return { ok: true, tracks: parsed.data.tracks.length, turns: parsed.data.turns.length, problems };
}
