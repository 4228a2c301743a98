import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CODON_TIMEOUT_MS, LoadedPlan, loadPlan } from '../../src/plan/index.ts';
import { DEFAULT_STALL_TIMEOUT_MS } from '../../src/plan/unattended-schema.ts';
import { loadText, yaml } from './helpers.ts';

const EXAMPLES = resolve('examples/plans');

async function load(name: string) {
  const result = await loadPlan(resolve(EXAMPLES, name));
  if (!result.ok) throw new Error(JSON.stringify(result.problems, null, 2));
  return result;
}

describe('loadPlan on the examples', () => {
  it('minimal: defaults applied', async () => {
    const { plan, warnings } = await load('minimal.yaml');
    expect(warnings).toEqual([]);
    expect(plan).toMatchObject({
      name: 'minimal',
      agentRoot: 'agentRoot',
      path: resolve(EXAMPLES, 'minimal.yaml'),
    });
    expect(plan.codons).toEqual([
      {
        approval: 'none',
        id: 'write-hello',
        codonId: 'write-hello',
        index: 0,
        name: 'Write hello',
        agent: 'builtin',
        prompt: 'Create hello.txt containing "hi".',
        continuation: 'fresh',
        timeoutMs: DEFAULT_CODON_TIMEOUT_MS,
        env: {},
        rigSetup: [],
        archiveOnSuccess: [],
        outputFiles: [],
        sentinels: [],
        onFailure: { then: 'idle' },
        onUsageLimit: {
          then: 'wait',
          maxWaitMs: 6 * 3_600_000,
          marginMs: 60_000,
          unknownResetWaitMs: 15 * 60_000,
          countWait: false,
        },
        stallTimeoutMs: DEFAULT_STALL_TIMEOUT_MS,
        verify: [],
        sandbox: { allowWrite: [], readOnly: [], hide: [] },
        mcpServers: {},
      },
    ]);
  });

  it('empty: a plan with no codons is valid', async () => {
    const { plan } = await load('empty.yaml');
    expect(plan.codons).toEqual([]);
  });

  it('loop: expanded in order, prompt file read with its front matter, paths made absolute', async () => {
    const { plan } = await load('loop.yaml');
    expect(plan.codons.map((c) => c.id)).toEqual([
      'scaffold',
      'draft#0',
      'review#0',
      'draft#1',
      'review#1',
      'draft#2',
      'review#2',
    ]);
    expect(plan.codons.map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const draft = plan.codons[3]!;
    expect(draft).toMatchObject({
      codonId: 'draft',
      model: 'claude-sonnet-4-5',
      continuation: 'continue-previous',
      timeoutMs: 600000,
      env: { ESSAY_FILE: 'essay.md' },
      promptFile: resolve(EXAMPLES, 'prompts/draft.md'),
      promptMetadata: { name: 'Draft a section', tags: ['writing', 'essay'], version: '1.0' },
      loop: { id: 'rounds', name: 'Improvement rounds', iteration: 1, iterations: 3, lastInIteration: false },
    });
    expect(draft.prompt.startsWith('Read essay.md')).toBe(true);
    expect(draft.prompt).not.toContain('---');
    expect(plan.codons[2]).toMatchObject({
      timeoutMs: 300000,
      loop: { lastInIteration: true, archiveOnSuccess: ['notes/*.tmp'] },
    });
    expect(plan.codons[0]!.rigSetup).toEqual([
      {
        type: 'copy',
        from: resolve(EXAMPLES, 'rig/style-guide.md'),
        to: 'docs/style-guide.md',
        allowFailure: false,
      },
      { type: 'run', command: 'mkdir -p notes', cwd: { base: 'agentRoot', path: '.' }, allowFailure: false },
    ]);
  });

  it('sentinels: named inline, named from a file, and inline on a codon', async () => {
    const { plan, warnings } = await load('sentinels.yaml');
    expect(warnings).toEqual([]);
    const [named, fromFile, inline] = plan.codons[0]!.sentinels;
    expect(named).toMatchObject({
      status: 'loaded',
      ref: 'no-destructive-commands',
      sentinel: {
        id: 'no-destructive-commands',
        source: 'inline',
        executionStrategy: { type: 'debounce', quietMs: 2000 },
      },
    });
    expect(fromFile).toMatchObject({
      status: 'loaded',
      ref: 'progress',
      sentinel: {
        id: 'progress',
        source: 'file',
        sourcePath: resolve(EXAMPLES, 'sentinels/progress.yaml'),
        systemPrompt: expect.stringContaining('You watch a coding agent'),
        conversational: { enabled: true, maxTurns: 5 },
        errorHandling: { maxConsecutiveFailures: 5, failCodonOnLoadError: false },
      },
    });
    expect(inline).toMatchObject({
      status: 'loaded',
      ref: 'test-watch',
      sentinel: {
        source: 'inline',
        userPrompt: expect.stringContaining('A source file changed'),
        trigger: { type: 'sequence', withinEvents: 50 },
        output: { type: 'structured', schema: { type: 'object' } },
        maxQueue: 1000,
        maxTokens: 1024,
      },
    });
    // One definition, shared by every codon that names it.
    expect(plan.codons[1]!.sentinels).toEqual([fromFile]);
    expect(plan.sentinels.progress).toEqual(fromFile);
  });

  it('a loaded plan satisfies its own schema (so it can be journaled and read back)', async () => {
    for (const name of ['minimal.yaml', 'loop.yaml', 'sentinels.yaml']) {
      const { plan } = await load(name);
      expect(LoadedPlan.parse(JSON.parse(JSON.stringify(plan)))).toEqual(plan);
    }
  });
});

describe('defaults and continuation', () => {
  it('an inherited continue-previous leaves the first codon fresh and applies to the rest', async () => {
    const result = await loadText(
      yaml(
        'name: x',
        'defaults: { continuation: continue-previous, env: { A: "1", B: "2" } }',
        'codons:',
        '  - { id: a, prompt: hi }',
        '  - { id: b, prompt: hi, env: { B: "3" } }',
      ),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.plan.codons.map((c) => c.continuation)).toEqual(['fresh', 'continue-previous']);
    expect(result.plan.codons[1]!.env).toEqual({ A: '1', B: '3' });
  });

  it('codon agent and model override the plan; name defaults to the id', async () => {
    const result = await loadText(
      yaml(
        'name: x',
        'agent: claude-code',
        'model: m1',
        'codons:',
        '  - { id: a, prompt: hi }',
        '  - { id: b, prompt: hi, agent: builtin, model: m2 }',
      ),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.plan.codons.map((c) => [c.name, c.agent, c.model])).toEqual([
      ['a', 'claude-code', 'm1'],
      ['b', 'builtin', 'm2'],
    ]);
  });

  it('run steps resolve cwd to a base and a path inside it', async () => {
    const result = await loadText(
      yaml(
        'name: x',
        'codons:',
        '  - id: a',
        '    prompt: hi',
        '    rigSetup:',
        '      - { run: make, cwd: execution, allowFailure: true, timeoutMs: 5000 }',
        '      - { run: make, cwd: ./tools/../tools/ }',
        '      - { copy: { from: data, to: ./in/ } }',
      ),
      { 'data/file.txt': 'x' },
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.plan.codons[0]!.rigSetup).toEqual([
      {
        type: 'run',
        command: 'make',
        cwd: { base: 'execution', path: '.' },
        allowFailure: true,
        timeoutMs: 5000,
      },
      { type: 'run', command: 'make', cwd: { base: 'agentRoot', path: 'tools' }, allowFailure: false },
      { type: 'copy', from: resolve(result.dir, 'data'), to: 'in', allowFailure: false },
    ]);
  });

  it('YAML anchors and merge keys share settings between codons', async () => {
    const result = await loadText(
      yaml(
        'name: x',
        'codons:',
        '  - &base { id: a, prompt: hi, timeoutMs: 1000, env: { K: v } }',
        '  - { <<: *base, id: b }',
      ),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.plan.codons.map((c) => [c.id, c.timeoutMs, c.env])).toEqual([
      ['a', 1000, { K: 'v' }],
      ['b', 1000, { K: 'v' }],
    ]);
  });

  it('reads JSON plans too', async () => {
    const result = await loadText(JSON.stringify({ name: 'json', codons: [{ id: 'a', prompt: 'hi' }] }));
    expect(result.ok && result.plan.codons.length).toBe(1);
  });
});
