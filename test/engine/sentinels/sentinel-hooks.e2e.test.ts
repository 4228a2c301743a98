import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, stopHarnesses, toolEvents } from './helpers.ts';

afterEach(stopHarnesses);

const reply = (text: string) => ({ content: [{ text }], usage: { input_tokens: 1000, output_tokens: 100 } });

describe('sentinels beside a codon (in-process, scripted provider on loopback)', () => {
  it('batches triggers by count, calls the model, writes files and publishes in order', async () => {
    const h = await startHarness({
      plan: `name: t
codons:
  - id: build
    name: Build
    prompt: Build it.
    sentinels:
      - id: narrator
        model: claude-haiku-4-5
        systemPrompt: You narrate {{codon.name}}.
        userPrompt: "#{{triggerNumber}} {{eventCount}} events, last {{events.last.type}}:\\n{{events}}"
        trigger: { type: event, eventTypes: [assistant.action, tool.result] }
        executionStrategy: { type: count, every: 2 }
        conversational: { enabled: true, maxTurns: 1 }
        outputFiles: { log: narrator/log.jsonl, last: narrator/last.txt }
`,
      script: {
        tracks: [
          {
            name: 'narrator',
            match: { header: { 'x-ribosome-sentinel': 'narrator' } },
            turns: [reply('It ran step 1.'), reply('It ran step 2.'), reply('It started step 3.')],
          },
        ],
      },
    });
    const codon = h.codon('build');
    expect(await h.hooks.beforeAgent(codon, 'run-1')).toBeUndefined();
    for (const n of [1, 2]) {
      const [call, result] = toolEvents('build', n);
      await h.publish(call.type, call.data);
      await h.publish(result.type, result.data);
    }
    await h.publish('info', { message: 'not a trigger' });
    const [third] = toolEvents('build', 3);
    await h.publish(third.type, third.data);
    await h.hooks.afterAgent(codon, 'run-1');

    // Two full batches of two, and the odd one out flushed at codon end.
    expect(h.sentinelTrail()).toEqual([
      'loaded',
      'triggered:1',
      'output:1',
      'triggered:2',
      'output:2',
      'triggered:3',
      'output:3',
      'unloaded:codon-complete',
    ]);
    const outputs = h.of('sentinel.output');
    expect(outputs.map((e) => [e.data.content, e.data.eventCount, e.data.outputType])).toEqual([
      ['It ran step 1.', 2, 'text'],
      ['It ran step 2.', 2, 'text'],
      ['It started step 3.', 1, 'text'],
    ]);
    // claude-haiku-4-5: $1/M input, $5/M output.
    for (const e of outputs) {
      expect(e.data.cost).toBeCloseTo(0.0015, 9);
      expect(e.data.tokens).toEqual({ input: 1000, output: 100 });
    }
    expect(h.of('sentinel.loaded')[0]?.data).toEqual({
      sentinelId: 'narrator',
      codonId: 'build',
      model: 'claude-haiku-4-5',
      triggerType: 'event',
      executionStrategy: 'count',
      conversational: true,
      source: 'inline',
    });
    expect(h.of('sentinel.unloaded')[0]?.data).toMatchObject({
      finalCost: expect.closeTo(0.0045, 9),
      llmCallCount: 3,
    });
    expect(h.of('sentinel.triggered').map((e) => e.data.eventCount)).toEqual([2, 2, 1]);

    // Costs reach the engine, and states are reported at load and unload.
    expect(h.costs.map((c) => c.codonId)).toEqual(['build', 'build', 'build']);
    expect(h.states.map((s) => s.states.map((x) => `${x.sentinelId}:${x.status}:${x.llmCallCount}`))).toEqual(
      [['narrator:loaded:0'], ['narrator:unloaded:3']],
    );

    // The prompts: rendered templates; history of one turn before the new prompt.
    const bodies = h.requests('narrator');
    expect(bodies[0]?.system).toBe('You narrate Build.');
    expect(bodies[0]?.messages).toHaveLength(1);
    expect(bodies[0]?.messages[0]?.content).toMatch(
      /^#1 2 events, last tool.result:\n\{"type":"assistant.action"/,
    );
    expect(bodies[2]?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(bodies[2]?.messages[1]?.content).toBe('It ran step 2.');

    const log = readFileSync(join(h.outputDir, 'narrator/log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(log.map((l) => [l.triggerNumber, l.content])).toEqual([
      [1, 'It ran step 1.'],
      [2, 'It ran step 2.'],
      [3, 'It started step 3.'],
    ]);
    expect(log.every((l) => !Number.isNaN(Date.parse(l.time)))).toBe(true);
    expect(readFileSync(join(h.outputDir, 'narrator/last.txt'), 'utf8')).toBe('It started step 3.');
  });

  it('validates structured output: a valid object is output, anything else an llm-call-failed error', async () => {
    const h = await startHarness({
      plan: `name: t
codons:
  - id: c
    prompt: Do it.
    sentinels:
      - id: loops
        model: claude-haiku-4-5
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [tool.result] }
        output:
          type: structured
          schema:
            type: object
            properties: { repeating: { type: boolean }, pattern: { type: string } }
            required: [repeating]
        outputFiles: { last: loops.json }
`,
      script: {
        tracks: [
          {
            name: 'loops',
            match: { tools: false },
            turns: [
              reply('```json\n{"repeating": true, "pattern": "echo"}\n```'),
              reply('I think it is fine.'),
              reply('{"repeating": "maybe"}'),
              reply('{"repeating": false}'),
            ],
          },
        ],
      },
    });
    const codon = h.codon('c');
    await h.hooks.beforeAgent(codon, 'run-1');
    for (const n of [1, 2, 3, 4]) {
      const result = toolEvents('c', n)[1];
      await h.publish(result.type, result.data);
    }
    await h.hooks.afterAgent(codon, 'run-1');
    expect(h.sentinelTrail()).toEqual([
      'loaded',
      'triggered:1',
      'output:1',
      'triggered:2',
      'error',
      'triggered:3',
      'error',
      'triggered:4',
      'output:4',
      'unloaded:codon-complete',
    ]);
    expect(h.of('sentinel.output').map((e) => [e.data.outputType, e.data.content])).toEqual([
      ['structured', { repeating: true, pattern: 'echo' }],
      ['structured', { repeating: false }],
    ]);
    expect(h.of('sentinel.error').map((e) => e.data)).toEqual([
      expect.objectContaining({
        errorType: 'llm-call-failed',
        retriable: true,
        consecutiveFailureCount: 1,
        message: expect.stringMatching(/not a JSON object/),
      }),
      expect.objectContaining({
        errorType: 'llm-call-failed',
        retriable: true,
        consecutiveFailureCount: 2,
        message: expect.stringMatching(/does not match the output schema/),
      }),
    ]);
    // The schema reached the model, and the last file holds the latest valid object.
    const system = h.requests()[0]?.system;
    expect(system).toContain('"required":["repeating"]');
    expect(JSON.parse(readFileSync(join(h.outputDir, 'loops.json'), 'utf8'))).toEqual({ repeating: false });
    // Invalid answers cost money too.
    expect(h.costs).toHaveLength(4);
  });

  it('turns provider errors into sentinel.error and unloads after maxConsecutiveFailures', async () => {
    const h = await startHarness({
      plan: `name: t
codons:
  - id: c
    prompt: Do it.
    sentinels:
      - id: flaky
        model: claude-haiku-4-5
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [tool.result] }
        errorHandling: { maxConsecutiveFailures: 3 }
      - id: steady
        model: claude-haiku-4-5
        userPrompt: "{{eventCount}}"
        trigger: { type: event, eventTypes: [tool.result] }
        executionStrategy: { type: debounce, quietMs: 60000 }
`,
      script: {
        tracks: [
          {
            name: 'flaky',
            match: { header: { 'x-ribosome-sentinel': 'flaky' } },
            turns: [
              { error: { status: 500 } },
              reply('ok'),
              { error: { status: 500 }, repeat: 3 },
              reply('never'),
            ],
          },
          { name: 'steady', match: { header: { 'x-ribosome-sentinel': 'steady' } }, turns: [reply('all 6')] },
        ],
      },
    });
    const codon = h.codon('c');
    await h.hooks.beforeAgent(codon, 'run-1');
    for (const n of [1, 2, 3, 4, 5, 6]) {
      const result = toolEvents('c', n)[1];
      await h.publish(result.type, result.data);
    }
    await h.hooks.afterAgent(codon, 'run-1');
    const flaky = h.events.filter(
      (e) => e.type.startsWith('sentinel.') && (e.data as { sentinelId: string }).sentinelId === 'flaky',
    );
    expect(flaky.map((e) => e.type)).toEqual([
      'sentinel.loaded',
      'sentinel.triggered',
      'sentinel.error',
      'sentinel.triggered',
      'sentinel.output',
      'sentinel.triggered',
      'sentinel.error',
      'sentinel.triggered',
      'sentinel.error',
      'sentinel.triggered',
      'sentinel.error',
      'sentinel.unloaded',
    ]);
    expect(
      h.of('sentinel.error').map((e) => [e.data.consecutiveFailureCount, e.data.retriable, e.data.errorType]),
    ).toEqual([
      [1, true, 'llm-call-failed'],
      [1, true, 'llm-call-failed'],
      [2, true, 'llm-call-failed'],
      [3, true, 'llm-call-failed'],
    ]);
    expect(h.of('sentinel.error')[0]?.data.message).toMatch(/500 api_error/);
    const unloaded = h.of('sentinel.unloaded');
    expect(unloaded.map((e) => [e.data.sentinelId, e.data.reason, e.data.llmCallCount])).toEqual([
      ['flaky', 'consecutive-failures', 5],
      ['steady', 'codon-complete', 1],
    ]);
    // The sixth result came after flaky unloaded: it made no call. steady's debounce was flushed at the end.
    expect(h.provider.requests.filter((r) => r.track === 'flaky')).toHaveLength(5);
    expect(h.of('sentinel.output').find((e) => e.data.sentinelId === 'steady')?.data).toMatchObject({
      content: 'all 6',
      eventCount: 6,
    });
    expect(h.states.map((s) => s.states.map((x) => `${x.sentinelId}:${x.status}`).join(' '))).toEqual([
      'flaky:loaded steady:loaded',
      'flaky:unloaded steady:loaded',
      'flaky:unloaded steady:unloaded',
    ]);
  });

  it('refuses a broken template at load: template-render-failed, and the codon fails when configured', async () => {
    // `ribosome validate` and loadPlan refuse such a plan; the engine still guards a codon handed to it.
    const h = await startHarness({
      plan: `name: t
codons:
  - id: c
    prompt: Do it.
    sentinels:
      - id: broken
        model: claude-haiku-4-5
        userPrompt: "Events: {{events}}"
        trigger: { type: event, eventTypes: [tool.result] }
        errorHandling: { failCodonOnLoadError: true }
      - id: typo
        model: claude-haiku-4-5
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [tool.result] }
`,
      script: { tracks: [] },
    });
    const [broken, typo] = h.codon('c').sentinels;
    broken!.sentinel.userPrompt = 'Events: {{events';
    typo!.sentinel.userPrompt = '{{evnets}}';
    const failure = await h.hooks.beforeAgent(h.codon('c'), 'run-1');
    expect(failure).toMatchObject({ type: 'sentinel-load-failure', sentinelRefs: ['broken'] });
    expect(
      h
        .of('sentinel.error')
        .map((e) => [e.data.sentinelId, e.data.errorType, e.data.retriable, e.data.message]),
    ).toEqual([
      [
        'broken',
        'template-render-failed',
        false,
        expect.stringMatching(/userPrompt line 1, column 9: unclosed/),
      ],
      ['typo', 'template-render-failed', false, expect.stringMatching(/\{\{evnets\}\}: unknown variable/)],
    ]);
    expect(h.of('error').map((e) => e.data.severity)).toEqual(['codon', 'warning']);
  });

  it('reports a value an event lacks as template-render-failed at call time, without calling the model', async () => {
    const h = await startHarness({
      plan: `name: t
codons:
  - id: c
    prompt: Do it.
    sentinels:
      - id: picky
        model: claude-haiku-4-5
        userPrompt: "{{events.last.data.toolInput.command}}"
        trigger: { type: event, eventTypes: [assistant.action, tool.result] }
        errorHandling: { maxConsecutiveFailures: 2 }
`,
      script: { tracks: [{ name: 'picky', match: { tools: false }, turns: [reply('ran echo 1')] }] },
    });
    const codon = h.codon('c');
    await h.hooks.beforeAgent(codon, 'run-1');
    const [call, result] = toolEvents('c', 1);
    await h.publish(call.type, call.data);
    await h.publish(result.type, result.data); // tool.result has no toolInput
    await h.publish(result.type, result.data);
    await h.hooks.afterAgent(codon, 'run-1');
    expect(h.sentinelTrail()).toEqual([
      'loaded',
      'triggered:1',
      'output:1',
      'triggered:2',
      'error',
      'triggered:3',
      'error',
      'unloaded:consecutive-failures',
    ]);
    expect(h.of('sentinel.error')[0]?.data).toMatchObject({
      errorType: 'template-render-failed',
      retriable: false,
      message: expect.stringMatching(/the tool.result event has no field data.toolInput.command/),
    });
    expect(h.provider.requests).toHaveLength(1);
  });

  it('reports a failed file write as file-write-failed and still publishes the output', async () => {
    const h = await startHarness({
      plan: `name: t
codons:
  - id: c
    prompt: Do it.
    sentinels:
      - id: w
        model: claude-haiku-4-5
        userPrompt: "{{eventCount}}"
        trigger: { type: event, eventTypes: [tool.result] }
        errorHandling: { maxConsecutiveFailures: 1 }
        outputFiles: { log: blocked/log.jsonl }
`,
      script: { tracks: [{ name: 'w', match: { tools: false }, turns: [reply('one'), reply('two')] }] },
    });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(h.outputDir, { recursive: true });
    writeFileSync(join(h.outputDir, 'blocked'), 'a file, not a directory');
    const codon = h.codon('c');
    await h.hooks.beforeAgent(codon, 'run-1');
    for (const n of [1, 2]) {
      const result = toolEvents('c', n)[1];
      await h.publish(result.type, result.data);
    }
    await h.hooks.afterAgent(codon, 'run-1');
    // A write failure does not count toward maxConsecutiveFailures (1 here): the sentinel stays.
    expect(h.sentinelTrail()).toEqual([
      'loaded',
      'triggered:1',
      'output:1',
      'error',
      'triggered:2',
      'output:2',
      'error',
      'unloaded:codon-complete',
    ]);
    expect(h.of('sentinel.error')[0]?.data).toMatchObject({
      errorType: 'file-write-failed',
      retriable: true,
      consecutiveFailureCount: 0,
      message: expect.stringMatching(/cannot write .*blocked\/log.jsonl/),
    });
  });

  it('never sees sentinel events, other codons’ events, or its own cost transitions; matches sequences', async () => {
    const h = await startHarness({
      plan: `name: t
codons:
  - id: c
    prompt: Do it.
    sentinels:
      - id: seq
        model: claude-haiku-4-5
        userPrompt: "{{events}}"
        trigger:
          type: sequence
          steps:
            - { eventType: assistant.action, conditions: [{ path: data.toolName, op: equals, value: Edit }] }
            - { eventType: tool.result, conditions: [{ path: data.isError, op: equals, value: true }] }
          withinEvents: 5
      - id: everything
        model: claude-haiku-4-5
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [sentinel.output, sentinel.loaded, state.transition, assistant.action] }
        executionStrategy: { type: debounce, quietMs: 60000 }
`,
      script: {
        tracks: [
          { name: 'all', match: { tools: false }, turns: [reply('edit broke it'), reply('saw it all')] },
        ],
      },
      hooks: { emitTriggered: false },
    });
    const codon = h.codon('c');
    await h.hooks.beforeAgent(codon, 'run-1');
    const [edit, result] = toolEvents('c', 1, 'Edit');
    const failed = { ...result.data, isError: true };
    await h.publish(edit.type, edit.data);
    await h.publish('tool.result', { ...failed, codonId: 'other-codon' }); // another codon's
    await h.publish('tool.result', failed);
    await h.publish('state.transition', {
      transitionType: 'CostsIncremented',
      codonId: 'c',
      transition: { type: 'CostsIncremented', data: { codonId: 'c', amount: 0.1, source: 'sentinel' } },
      resultingState: { currentRunId: 'run-1', runCount: 1, totalCost: 0.1, currentRunCost: 0.1 },
    });
    await h.hooks.afterAgent(codon, 'run-1');
    const seq = h.of('sentinel.output').find((e) => e.data.sentinelId === 'seq');
    expect(seq?.data).toMatchObject({ content: 'edit broke it', eventCount: 2 });
    const everything = h.of('sentinel.output').find((e) => e.data.sentinelId === 'everything');
    // Only the Edit action: not sentinel events, not the sentinel's own cost transition.
    expect(everything?.data.eventCount).toBe(1);
    const prompt = h.requests('seq')[0]?.messages[0]?.content ?? '';
    expect(prompt.split('\n').map((l) => JSON.parse(l).data.codonId)).toEqual(['c', 'c']);
    // sentinel.triggered is off unless asked for.
    expect(h.of('sentinel.triggered')).toEqual([]);
  });

  it('abandons work still pending after pendingWorkTimeoutMs and unloads without an error', async () => {
    const h = await startHarness({
      plan: `name: t
codons:
  - id: c
    prompt: Do it.
    sentinels:
      - id: slow
        model: claude-haiku-4-5
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [tool.result] }
`,
      script: { tracks: [{ name: 'slow', match: { tools: false }, turns: [{ stall: true }] }] },
      hooks: { pendingWorkTimeoutMs: 200 },
    });
    const codon = h.codon('c');
    await h.hooks.beforeAgent(codon, 'run-1');
    for (const n of [1, 2, 3]) {
      const result = toolEvents('c', n)[1];
      await h.publish(result.type, result.data);
    }
    await h.hooks.afterAgent(codon, 'run-1');
    await new Promise((r) => setTimeout(r, 50)); // let the aborted call come back
    expect(h.sentinelTrail()).toEqual(['loaded', 'triggered:1', 'unloaded:codon-complete']);
    expect(h.of('sentinel.unloaded')[0]?.data).toMatchObject({ llmCallCount: 1, finalCost: 0 });
  });

  it('unloads everything at shutdown, aborting a call in flight', async () => {
    const h = await startHarness({
      plan: `name: t
codons:
  - id: c
    prompt: Do it.
    sentinels:
      - id: slow
        model: claude-haiku-4-5
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [tool.result] }
`,
      script: { tracks: [{ name: 'slow', match: { tools: false }, turns: [{ stall: true }] }] },
    });
    const codon = h.codon('c');
    await h.hooks.beforeAgent(codon, 'run-1');
    const result = toolEvents('c', 1)[1]!;
    await h.publish(result.type, result.data);
    while (h.provider.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    await h.hooks.shutdown();
    expect(h.sentinelTrail()).toEqual(['loaded', 'triggered:1', 'unloaded:shutdown']);
    // After shutdown nothing loads any more, and afterAgent has nothing to do.
    expect(await h.hooks.beforeAgent(codon, 'run-1')).toBeUndefined();
    await h.hooks.afterAgent(codon, 'run-1');
    expect(h.of('sentinel.loaded')).toHaveLength(1);
    expect(existsSync(h.outputDir)).toBe(false);
  });

  it('ends a codon-end wait at shutdown: one unload, reason shutdown', async () => {
    const h = await startHarness({
      plan: `name: t
codons:
  - id: c
    prompt: Do it.
    sentinels:
      - id: slow
        model: claude-haiku-4-5
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [tool.result] }
`,
      script: { tracks: [{ name: 'slow', match: { tools: false }, turns: [{ stall: true }] }] },
      hooks: { pendingWorkTimeoutMs: 60_000 },
    });
    const codon = h.codon('c');
    await h.hooks.beforeAgent(codon, 'run-1');
    const result = toolEvents('c', 1)[1];
    await h.publish(result.type, result.data);
    const ending = h.hooks.afterAgent(codon, 'run-1');
    while (h.provider.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    await h.hooks.shutdown();
    await ending;
    expect(h.sentinelTrail()).toEqual(['loaded', 'triggered:1', 'unloaded:shutdown']);
    expect(h.states.map((s) => s.states[0]?.status)).toEqual(['loaded', 'unloaded']);
  });
});
