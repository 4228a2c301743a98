import { basename } from 'node:path';
import { ScriptSchema } from '../../llm/mock-provider/script-schema.ts';
import { ConfigFile } from '../../plan/config/config-file.ts';
import { Plan } from '../../plan/plan-schema.ts';
import { SentinelFile } from '../../plan/sentinel-schema.ts';

/** The files `ribosome validate` checks, told apart by what they hold (pure). */
export const FILE_KINDS = ['plan', 'sentinel', 'config', 'script'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

const KEYS: Record<FileKind, ReadonlySet<string>> = {
  plan: new Set(Object.keys(Plan.shape)),
  sentinel: new Set(Object.keys(SentinelFile.shape)),
  config: new Set(Object.keys(ConfigFile.shape)),
  script: new Set(Object.keys(ScriptSchema.shape)),
};

/**
 * What a file is: the schema its `$schema` names; else a plan when it has `codons`, a sentinel when it
 * has `trigger` or `userPrompt`, a scripted-provider script when it has `tracks` or `turns`; else the
 * kind most of its keys belong to only (a config file shares `budget` and `notify` with plans); else a
 * config file by its name (`*.config.yaml`); else a plan, whose problems then say what is missing.
 */
export function detectKind(file: string, data: unknown): FileKind {
  const fields = typeof data === 'object' && data !== null && !Array.isArray(data) ? data : {};
  const schema = Reflect.get(fields, '$schema');
  if (typeof schema === 'string') {
    const named = FILE_KINDS.find((kind) => schema.includes(`${kind}.schema.json`));
    if (named !== undefined) return named;
  }
  const keys = Object.keys(fields);
  if (keys.includes('codons')) return 'plan';
  if (keys.includes('trigger') || keys.includes('userPrompt')) return 'sentinel';
  if (keys.includes('tracks') || keys.includes('turns')) return 'script';
  const only = (kind: FileKind) =>
    keys.filter(
      (k) => KEYS[kind].has(k) && FILE_KINDS.every((other) => other === kind || !KEYS[other].has(k)),
    ).length;
  const scores = FILE_KINDS.map((kind) => ({ kind, score: only(kind) }));
  const best = scores.reduce((a, b) => (b.score > a.score ? b : a));
  if (best.score > 0) return best.kind;
  if (/\.config\.(ya?ml|json)$/i.test(basename(file))) return 'config';
  return 'plan';
}
