import { basename } from 'node:path';
import { closest } from '../../core/validation/suggest.ts';
import { ScriptSchema } from '../../llm/mock-provider/script-schema.ts';
import { BatchFile } from '../../plan/batch-schema.ts';
import { ConfigFile } from '../../plan/config/config-file.ts';
import { Plan } from '../../plan/plan-schema.ts';
import { SentinelFile } from '../../plan/sentinel-schema.ts';

/** The files `ribosome validate` checks, told apart by what they hold (pure). */
export const FILE_KINDS = ['plan', 'sentinel', 'config', 'script', 'batch'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

const KEYS: Record<FileKind, ReadonlySet<string>> = {
  plan: new Set(Object.keys(Plan.shape)),
  sentinel: new Set(Object.keys(SentinelFile.shape)),
  config: new Set(Object.keys(ConfigFile.shape)),
  script: new Set(Object.keys(ScriptSchema.shape)),
  batch: new Set(Object.keys(BatchFile.shape)),
};

/** Every key of every kind: what a misspelt key is nearest to. */
const ALL_KEYS: readonly string[] = [...new Set(FILE_KINDS.flatMap((kind) => [...KEYS[kind]]))];

/**
 * What a file is: the schema its `$schema` names; else a plan when it has `codons`, a sentinel when it
 * has `trigger` or `userPrompt`, a scripted-provider script when it has `tracks` or `turns`, a batch
 * when it has `jobs` or `matrix`; else the
 * kind most of its keys belong to only (a config file shares `budget` and `notify` with plans); else a
 * config file by its name (`*.config.yaml`, `config.json`, `ribosome-config.yaml`); else the kind most
 * of its misspelt keys are nearest to (`proxyDoubleMaxToken`: a config file's); else a config file
 * when all its keys are a config file's (`budget`: a plan has `codons` too); else a plan, whose
 * problems then say what is missing.
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
  if (keys.includes('matrix') || keys.includes('jobs')) return 'batch';
  const exact = mostlyOf(keys);
  if (exact !== undefined) return exact;
  if (CONFIG_NAME.test(basename(file))) return 'config';
  // Misspelt keys as the keys they are nearest to (`proxyDoubleMaxToken`: a config file's).
  const meant = keys.map((k) => closest(k, ALL_KEYS) ?? k);
  const near = mostlyOf(meant);
  if (near !== undefined) return near;
  if (meant.length > 0 && meant.every((k) => KEYS.config.has(k))) return 'config';
  return 'plan';
}

/** The kind most of `keys` belong to only, if any. */
function mostlyOf(keys: readonly string[]): FileKind | undefined {
  const only = (kind: FileKind) =>
    keys.filter(
      (k) => KEYS[kind].has(k) && FILE_KINDS.every((other) => other === kind || !KEYS[other].has(k)),
    ).length;
  const best = FILE_KINDS.map((kind) => ({ kind, score: only(kind) })).reduce((a, b) =>
    b.score > a.score ? b : a,
  );
  return best.score > 0 ? best.kind : undefined;
}

/** `ribosome.config.yaml`, `my.config.json`, `config.yml`, `ribosome-config.yaml`. */
const CONFIG_NAME = /(?:^|[.\-_])config\.(?:ya?ml|json)$/i;
