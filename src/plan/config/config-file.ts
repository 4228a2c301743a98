import { resolve } from 'node:path';
import { z } from 'zod';
import { hasErrors, type PlanProblem, sortProblems } from '../problems.ts';
import { readSourceFile } from '../source-file.ts';
import { issuesToDrafts } from '../zod-issues.ts';
import { ProxyFileKeys, proxyKeyConflicts } from './proxy-config.ts';
import { ServerSettings } from './server-config.ts';

/**
 * The config file (`ribosome run --config FILE`, YAML or JSON): every key any part of Ribosome reads
 * from it, in one strict schema. It is checked as a plan is (unknown keys with a "did you mean", line
 * and column), keys that may not go together included; the server's settings and the proxy's then
 * take their own keys from the checked value.
 * schema/config.schema.json and docs/reference/config.md are generated from it.
 */
export const ConfigFile = z
  .strictObject({
    $schema: z.string().optional().describe('JSON Schema of this file, for editors; ignored by Ribosome.'),
    ...ServerSettings.shape,
    ...ProxyFileKeys.shape,
    sentinelTriggeredEvents: z
      .boolean()
      .optional()
      .describe('Publish a sentinel.triggered event each time a sentinel fires. Default false.'),
    record: z
      .boolean()
      .optional()
      .describe(
        "Record every LLM exchange of the run's agents and sentinels into <execution>/cassette.jsonl, for `ribosome replay` (as `ribosome run --record`). Default false.",
      ),
    approveAll: z
      .boolean()
      .optional()
      .describe(
        'Approve every codon with approval: required at once, as `ribosome run --approve-all` (for tests and CI; the journal still shows each gate). Default false.',
      ),
    sharedLimits: z
      .string()
      .min(1)
      .optional()
      .describe(
        "A directory of usage limits shared with the other runs that name it (as `ribosome run --shared-limits DIR`; relative to this file's folder): a limit one run meets on a credential holds the automatic starts of the others on the same credential until it resets. Made when missing.",
      ),
  })
  // Keys that may not go together: checked here, so validate and run --config agree, at the key.
  .superRefine((file, ctx) => {
    for (const { key, message } of proxyKeyConflicts(file))
      ctx.addIssue({ code: 'custom', path: [key], message });
  })
  .describe('Settings of `ribosome run --config FILE`: defaults < config file < environment < command line.');
export type ConfigFile = z.input<typeof ConfigFile>;

export type ConfigFileLoad =
  | { ok: true; value: Record<string, unknown>; warnings: PlanProblem[] }
  | { ok: false; problems: PlanProblem[] };

/**
 * Reads and checks a config file. The value is the file's own (defaults are applied by each part
 * that reads it), without `$schema`. Every problem is reported in one pass, placed in the file.
 */
export async function loadConfigFile(path: string): Promise<ConfigFileLoad> {
  const file = resolve(path);
  const read = await readSourceFile(file, 'config file');
  // A file of comments only (a template with every key commented out) sets nothing.
  if (!read.ok && read.problems.every((p) => p.code === 'EMPTY_FILE'))
    return { ok: true, value: {}, warnings: [] };
  if (!read.ok) return { ok: false, problems: read.problems };
  const { source } = read;
  const parsed = ConfigFile.safeParse(source.data);
  const drafts = parsed.success ? [] : issuesToDrafts(parsed.error.issues, ConfigFile, source.data);
  const problems = sortProblems([...read.warnings, ...drafts.map(source.locate)], [file]);
  if (!parsed.success || hasErrors(problems)) return { ok: false, problems };
  const { $schema: _schema, ...value } = source.data as Record<string, unknown>;
  return { ok: true, value, warnings: problems };
}

/**
 * The keys of the file, those of nested objects dotted (`limits.maxClients`, `budget.maxCostUsd`):
 * the keys docs/reference/config.md lists and examples/ribosome.config.yaml sets.
 */
export function configKeys(): string[] {
  const keysOf = (shape: Record<string, z.ZodType>, prefix: string): string[] =>
    Object.entries(shape).flatMap(([key, schema]) => {
      if (key === '$schema') return [];
      let inner = schema;
      while (
        inner instanceof z.ZodOptional ||
        inner instanceof z.ZodDefault ||
        inner instanceof z.ZodPrefault
      )
        inner = inner.unwrap() as z.ZodType;
      // A union with an object among its options (`sandbox: on` or `sandbox: {...}`): that object's keys.
      const object =
        inner instanceof z.ZodUnion
          ? (inner.options as z.ZodType[]).find((option) => option instanceof z.ZodObject)
          : inner;
      const nested = object instanceof z.ZodObject ? keysOf(object.shape, `${prefix}${key}.`) : [];
      return [`${prefix}${key}`, ...nested];
    });
  return keysOf(ConfigFile.shape, '');
}
