import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_VARIABLES } from '../../src/core/environment.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const REGISTRY = join(ROOT, 'src/core/environment.ts');

/** The text of every file under src/ and bin/ but the registry itself. */
async function sources(): Promise<string[]> {
  const texts: string[] = [];
  for (const dir of ['src', 'bin']) {
    const entries = await readdir(join(ROOT, dir), { recursive: true, withFileTypes: true });
    for (const entry of entries.filter((e) => e.isFile())) {
      const file = join(entry.parentPath, entry.name);
      if (file !== REGISTRY) texts.push(await readFile(file, 'utf8'));
    }
  }
  return texts;
}

describe('the environment registry (docs/reference/environment.md)', () => {
  const registered = ENVIRONMENT_VARIABLES.flatMap((v) => v.names);

  it('holds every RIBOSOME_* and SERVICE_RUNTIME_* variable the sources name', async () => {
    const named = new Set<string>();
    for (const text of await sources())
      for (const m of text.matchAll(/\b(?:RIBOSOME|SERVICE_RUNTIME)_[A-Z0-9_]*[A-Z0-9]\b/g)) named.add(m[0]);
    expect(named.size).toBeGreaterThan(5);
    expect([...named].filter((name) => !registered.includes(name)).sort()).toEqual([]);
  });

  it('holds no variable the sources never name, and none twice', async () => {
    const texts = await sources();
    const unused = registered.filter((name) => !texts.some((t) => new RegExp(`\\b${name}\\b`).test(t)));
    expect(unused).toEqual([]);
    expect(new Set(registered).size).toBe(registered.length);
  });
});
