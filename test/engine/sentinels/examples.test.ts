import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideActions, freshGuards } from '../../../src/engine/sentinels/actions/decide-actions.ts';
import { type CompiledSentinel, compileSentinel } from '../../../src/engine/sentinels/compile-sentinel.ts';
import { loadSentinelFile } from '../../../src/plan/index.ts';

const dir = join(import.meta.dirname, '../../../examples/sentinels');
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));

describe('example sentinels', () => {
  it('ships the narrator, the loop detector and the cost watcher', () => {
    expect(files.sort()).toEqual(['cost-watcher.yaml', 'loop-detector.yaml', 'narrator.yaml']);
  });

  it.each(files)('%s loads without problems and compiles', async (file) => {
    const loaded = await loadSentinelFile(join(dir, file));
    expect(loaded.problems).toEqual([]);
    if (!loaded.ok) throw new Error(`${file} did not load`);
    const compiled = compileSentinel(loaded.sentinel, '/tmp/sentinels');
    expect(compiled.ok ? 'ok' : compiled.failure.message).toBe('ok');
  });
});

describe('the example sentinels act', () => {
  async function compiledExample(file: string) {
    const loaded = await loadSentinelFile(join(dir, file));
    if (!loaded.ok) throw new Error(`${file} did not load`);
    const compiled = compileSentinel(loaded.sentinel, '/tmp/sentinels');
    if (!compiled.ok) throw new Error(compiled.failure.message);
    return compiled.sentinel;
  }

  /** The actions each output of `outputs` calls for, one output a second. */
  function actionsFor(sentinel: CompiledSentinel, outputs: Array<string | Record<string, unknown>>) {
    const { maxActions, cooldownMs } = sentinel.definition;
    let guards = freshGuards(sentinel.actions.length);
    return outputs.map((output, i) => {
      const context = {
        output,
        sentinelId: sentinel.definition.id,
        codon: { id: 'c', name: 'C' },
        triggerNumber: i + 1,
      };
      const step = decideActions(
        sentinel.actions,
        context,
        guards,
        { maxActions, cooldownMs },
        i * 1000,
        () => 0,
      );
      guards = step.guards;
      return step.decisions.map((d) => ('text' in d && d.text ? `${d.kind}: ${d.text}` : d.kind));
    });
  }

  it('the loop detector sends its advice on a repeat and halts on the third', async () => {
    const repeating = {
      repeating: true,
      pattern: 'ls -la, six times',
      advice: 'Stop listing; finish the edit.',
    };
    const fine = { repeating: false, pattern: '', advice: '' };
    expect(
      actionsFor(await compiledExample('loop-detector.yaml'), [repeating, fine, repeating, repeating]),
    ).toEqual([
      [
        'message: A monitor of this run sees you repeating yourself (ls -la, six times). Stop listing; finish the edit.',
      ],
      [],
      [],
      ['halt'],
    ]);
  });

  it('the cost watcher halts the step when it answers HALT', async () => {
    expect(
      actionsFor(await compiledExample('cost-watcher.yaml'), [
        'OK: $0.61, mostly cached.',
        'WARN: $1.20, uncached input doubles each call.',
        '**HALT**: $2.31 spent, still growing.',
      ]),
    ).toEqual([[], [], ['halt']]);
  });
});
