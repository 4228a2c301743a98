import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SCHEMA_DIR } from '../../src/host/contract/generate.ts';
import { schemaFiles } from '../../src/plan/json-schema.ts';
import { Plan } from '../../src/plan/plan-schema.ts';
import { SentinelFile } from '../../src/plan/sentinel-schema.ts';

const EXAMPLES = resolve('examples/plans');
const readYaml = async (name: string): Promise<unknown> =>
  parse(await readFile(join(EXAMPLES, name), 'utf8'));

describe('zod schemas', () => {
  it.each([
    'minimal.yaml',
    'empty.yaml',
    'loop.yaml',
    'sentinels.yaml',
    'invalid/sentinel-file-missing.yaml',
  ])('accepts examples/plans/%s', async (name) => {
    const result = Plan.safeParse(await readYaml(name));
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it('accepts the example sentinel file', async () => {
    const result = SentinelFile.safeParse(await readYaml('sentinels/progress.yaml'));
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it('fills defaults', () => {
    const plan = Plan.parse({ name: 'x', codons: [] });
    expect(plan).toEqual({
      name: 'x',
      agent: 'builtin',
      agentRoot: 'agentRoot',
      defaults: { timeoutMs: 1_800_000, env: {}, continuation: 'fresh', stallTimeoutMs: 600_000 },
      sentinels: {},
      codons: [],
    });
    const sentinel = SentinelFile.parse({
      id: 's',
      model: 'm',
      userPrompt: 'u',
      trigger: { type: 'event', eventTypes: ['tool.result'] },
    });
    expect(sentinel).toMatchObject({
      executionStrategy: { type: 'immediate' },
      maxQueue: 1000,
      conversational: { enabled: false },
      output: { type: 'text' },
      errorHandling: { maxConsecutiveFailures: 3, failCodonOnLoadError: false },
      maxTokens: 1024,
      trigger: { conditions: [] },
    });
  });

  it('refuses a nested loop and an empty loop', () => {
    const nested = { loop: { id: 'in', iterations: 1, codons: [{ id: 'a', prompt: 'p' }] } };
    expect(
      Plan.safeParse({ name: 'x', codons: [{ loop: { id: 'out', iterations: 1, codons: [nested] } }] })
        .success,
    ).toBe(false);
    expect(
      Plan.safeParse({ name: 'x', codons: [{ loop: { id: 'l', iterations: 1, codons: [] } }] }).success,
    ).toBe(false);
  });
});

describe('shipped JSON Schema', () => {
  it.each(Object.keys(schemaFiles()))(
    'schema/%s equals fresh output (run `npm run schema`)',
    async (name) => {
      const shipped = await readFile(join(SCHEMA_DIR, name), 'utf8');
      expect(shipped).toBe(schemaFiles()[name]);
    },
  );

  it('describes fields and restates "prompt or promptFile"', () => {
    const schema = JSON.parse(schemaFiles()['plan.schema.json']!);
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.required).toEqual(['name', 'codons']);
    expect(schema.definitions.Codon.oneOf).toEqual([{ required: ['prompt'] }, { required: ['promptFile'] }]);
    expect(schema.definitions.Codon.properties.continuation.description).toContain('continue-previous');
  });

  it('the examples point editors at the shipped schema', async () => {
    const text = await readFile(join(EXAMPLES, 'loop.yaml'), 'utf8');
    expect(text.startsWith('# yaml-language-server: $schema=../../schema/plan.schema.json')).toBe(true);
  });
});
