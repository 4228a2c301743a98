import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSentinelFile } from '../../src/plan/index.ts';
import { compileSentinel } from '../../src/sentinels/compile-sentinel.ts';

const dir = join(import.meta.dirname, '../../examples/sentinels');
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
