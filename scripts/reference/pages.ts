import { isDeepStrictEqual } from 'node:util';
import type { Command } from 'commander';
import { ENVIRONMENT_NOTES, ENVIRONMENT_VARIABLES } from '../../src/core/environment.ts';
import { BatchFile } from '../../src/plan/batch-schema.ts';
import { ConfigFile } from '../../src/plan/config/config-file.ts';
import { jsonSchema } from '../../src/plan/json-schema.ts';
import { Plan } from '../../src/plan/plan-schema.ts';
import { SentinelFile } from '../../src/plan/sentinel-schema.ts';
import { cliReference } from './cli-markdown.ts';
import { code, page, table } from './markdown.ts';
import { definitionsOf, reachedDefinitions, type Schema, SchemaRenderer } from './schema-markdown.ts';

/** Every page of docs/reference/, by file name: what `npm run docs` writes and the test compares. */
export function referencePages(program: Command, cwd: string): Record<string, string> {
  return {
    'cli.md': cliReference(program, cwd),
    'plan.md': planReference(),
    'config.md': configReference(),
    'batch.md': batchReference(),
    'environment.md': environmentReference(),
  };
}

/** Sections first for these definitions, the rest in the order they are first reached. */
const LEADING = ['Codon', 'SentinelDefinition'];

export function planReference(): string {
  const plan = jsonSchema(Plan);
  const sentinel = jsonSchema(SentinelFile);
  const definitions = mergeDefinitions([plan, sentinel]);
  const render = new SchemaRenderer(definitions);
  const reached = reachedDefinitions([plan, sentinel], definitions);
  const order = [
    ...LEADING.filter((n) => reached.includes(n)),
    ...reached.filter((n) => !LEADING.includes(n)),
  ];
  return page('Plan and sentinel file reference', [
    'Every field of a plan file, of its codons and of a sentinel file (YAML or JSON), with its type, ' +
      'default and meaning. `schema/plan.schema.json` and `schema/sentinel.schema.json` hold the same ' +
      'for editors. `ribosome validate FILE` checks a file.',
    render.section('Plan file', plan),
    ...order.map((name) => render.section(name, definitions[name]!)),
    render.section('Sentinel file', sentinel),
  ]);
}

export function configReference(): string {
  const config = jsonSchema(ConfigFile);
  const render = new SchemaRenderer(definitionsOf(config));
  return page('Config file reference', [
    'Every key of the config file (`ribosome run --config FILE`, YAML or JSON), with its type, default ' +
      'and meaning. `examples/ribosome.config.yaml` sets every key; `schema/config.schema.json` gives ' +
      'editors completion. `ribosome validate FILE` checks a file.',
    render.section('Config file', config),
  ]);
}

export function batchReference(): string {
  const batch = jsonSchema(BatchFile);
  const render = new SchemaRenderer(definitionsOf(batch));
  return page('Batch file reference', [
    'Every field of a batch file (`ribosome batch FILE`, YAML or JSON; docs/batches.md), with its type, ' +
      'default and meaning. `schema/batch.schema.json` gives editors completion. `ribosome validate FILE` ' +
      'checks a file and every plan and workspace its jobs name.',
    render.section('Batch file', batch),
  ]);
}

export function environmentReference(): string {
  const rows = ENVIRONMENT_VARIABLES.map((v) => [v.names.map(code).join(', '), v.meaning]);
  return page('Environment variable reference', [
    'Every environment variable Ribosome reads, and the few it sets for its own processes.',
    table(['variable', 'meaning'], rows),
    ...ENVIRONMENT_NOTES,
  ]);
}

/** The definitions of several documents; one name must mean one schema in all of them. */
function mergeDefinitions(documents: readonly Schema[]): Record<string, Schema> {
  const merged: Record<string, Schema> = {};
  for (const [name, schema] of documents.flatMap((d) => Object.entries(definitionsOf(d)))) {
    if (merged[name] !== undefined && !isDeepStrictEqual(merged[name], schema))
      throw new Error(`two definitions named ${name} differ`);
    merged[name] ??= schema;
  }
  return merged;
}
