import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { currentPages, REFERENCE_DIR } from '../../scripts/docs-reference.ts';
import { cliReference } from '../../scripts/reference/cli-markdown.ts';
import { GENERATED_LINE, REGENERATE_DOCS } from '../../scripts/reference/markdown.ts';
import { SchemaRenderer } from '../../scripts/reference/schema-markdown.ts';
import { ENVIRONMENT_VARIABLES } from '../../src/core/environment.ts';
import { jsonSchema } from '../../src/plan/json-schema.ts';

const pages = currentPages();

describe('docs/reference/ is what `npm run docs` writes now', () => {
  it('holds the five pages and no other', async () => {
    expect(Object.keys(pages).sort()).toEqual([
      'batch.md',
      'cli.md',
      'config.md',
      'environment.md',
      'plan.md',
    ]);
    expect((await readdir(REFERENCE_DIR)).sort()).toEqual(Object.keys(pages).sort());
  });

  it.each(Object.keys(pages))('%s is up to date', async (name) => {
    const onDisk = await readFile(join(REFERENCE_DIR, name), 'utf8');
    expect(onDisk, `docs/reference/${name} is stale: run \`${REGENERATE_DOCS}\``).toBe(pages[name]);
  });

  it('every page opens with the line saying so, and none holds this machine’s paths', () => {
    for (const text of Object.values(pages)) {
      expect(text.split('\n')[0]).toBe(GENERATED_LINE);
      expect(text).toContain(REGENERATE_DOCS);
      expect(text).not.toContain(process.cwd());
    }
  });
});

describe('the CLI reference', () => {
  it('gives every command its usage, arguments and options, with defaults and choices', () => {
    const program = new Command('tool').description('A tool.');
    const group = program.command('group').description('Commands of a group');
    group
      .command('go')
      .description('Go somewhere')
      .argument('<where...>', 'places, <name> or path')
      .option('--speed <n>', 'how fast', '3')
      .addOption(new Option('--mode <m>', 'how').choices(['walk', 'run']).default('walk'))
      .requiredOption('--map <file>', 'the map')
      .option('--cwd <dir>', 'where to start', '/home/someone/here')
      .option('--no-rest', 'never stop');
    const text = cliReference(program, '/home/someone/here');
    expect(text).toContain('## tool group go\n\n`tool group go [options] <where...>`\n\nGo somewhere');
    expect(text).toContain('Subcommands: [`go`](#tool-group-go).');
    expect(text).toContain('| `<where...>` | places, &lt;name> or path |');
    expect(text).toContain('| `--speed <n>` | `"3"` | how fast |');
    expect(text).toContain('| `--mode <m>` | `"walk"` | how (one of `walk`, `run`) |');
    expect(text).toContain('| `--map <file>` |  | the map (required) |');
    expect(text).toContain('| `--cwd <dir>` | the current directory | where to start |');
    expect(text).toContain('| `--no-rest` |  | never stop |');
  });

  it('lists every command of `ribosome`, the nested ones too', () => {
    const cli = pages['cli.md']!;
    for (const command of ['run', 'validate', 'doctor', 'web', 'journal', 'journal export', 'batch export'])
      expect(cli).toContain(`\n## ribosome ${command}\n`);
    expect(cli).toContain('| `--format <format>` | `"jsonl"` | output format (one of `jsonl`) |');
  });
});

describe('the schema references', () => {
  const Step = z
    .strictObject({
      kind: z.discriminatedUnion('type', [
        z
          .strictObject({ type: z.literal('wait'), ms: z.number().int().describe('How long.') })
          .describe('Waits.'),
        z.strictObject({ type: z.literal('say'), text: z.string().describe('What.') }).describe('Speaks.'),
      ]),
      tags: z.record(z.string(), z.string()).default({}).describe('Labels.'),
      mode: z.enum(['fast', 'slow']).optional().describe('Pace, default <fast>.'),
    })
    .describe('A step.');

  it('a row per field, nested ones dotted; a union of objects merged, each field saying its variant', () => {
    const text = new SchemaRenderer({}).section('Step', jsonSchema(Step));
    expect(text.split('\n')).toEqual([
      '## Step',
      '',
      'A step.',
      '',
      '| field | type | default | description |',
      '|---|---|---|---|',
      '| `kind` | object, required |  |  |',
      '| `kind.type` | `wait` or `say`, required |  | `wait`: Waits. `say`: Speaks. |',
      '| `kind.ms` | integer, required |  | With `type` `wait`: How long. |',
      '| `kind.text` | string, required |  | With `type` `say`: What. |',
      '| `tags` | map of string | `{}` | Labels. |',
      '| `mode` | `fast` or `slow` |  | Pace, default &lt;fast>. |',
    ]);
  });

  it('the config reference gives each key its type and default, nested keys dotted', () => {
    const config = pages['config.md']!;
    expect(config).toContain('| `limits.maxClients` | integer | `64` |');
    expect(config).toContain('| `journalSync` | `full` or `normal` | `full` |');
  });

  it('the plan reference covers the plan file, a codon, a sentinel file and what they link to', () => {
    const plan = pages['plan.md']!;
    for (const section of ['Plan file', 'Codon', 'SentinelDefinition', 'Trigger', 'Sentinel file'])
      expect(plan).toContain(`\n## ${section}\n`);
    expect(plan).toContain('| `codons[].loop.iterations` | integer, required |');
    expect(plan).toContain('| `provider` | [Provider](#provider) |');
  });

  it('the environment reference lists every variable of the registry', () => {
    const environment = pages['environment.md']!;
    for (const { names } of ENVIRONMENT_VARIABLES) expect(environment).toContain(`| \`${names[0]}\``);
  });
});
