import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedLimitsDir } from '../../../../src/clients/cli/run/shared-limits.ts';
import { tempDir } from '../../../helpers/server-process.ts';

/** `ribosome run --shared-limits DIR` (and the config file's sharedLimits): checked before anything starts. */

const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});
function temp(): string {
  const dir = tempDir('ribosome-shared-flag-');
  dirs.push(dir);
  return dir.path;
}

describe('the shared usage limits directory of a run', () => {
  it('is none unless the flag or the config file names one', () => {
    expect(sharedLimitsDir({ flag: undefined, file: undefined, configDir: '/x' })).toEqual({
      ok: true,
      value: undefined,
    });
  });

  it('is made when missing; the flag wins over the config file, whose path starts at its folder', () => {
    const root = temp();
    const made = sharedLimitsDir({ flag: join(root, 'a/b'), file: 'c', configDir: root });
    expect(made).toEqual({ ok: true, value: join(root, 'a/b') });
    expect(statSync(join(root, 'a/b')).isDirectory()).toBe(true);
    mkdirSync(join(root, 'conf'));
    expect(sharedLimitsDir({ flag: undefined, file: '../limits', configDir: join(root, 'conf') })).toEqual({
      ok: true,
      value: join(root, 'limits'),
    });
  });

  it('a file, or a path under one, is refused with exit 2 and a line that names it', () => {
    const root = temp();
    const file = join(root, 'limits.json');
    writeFileSync(file, '{}');
    for (const flag of [file, join(file, 'sub')]) {
      const refused = sharedLimitsDir({ flag, file: undefined, configDir: root });
      expect(refused).toMatchObject({ ok: false, code: 2 });
      if (!refused.ok)
        expect(refused.text).toBe(
          `ribosome: --shared-limits must be a directory, and ${flag} is a file (or lies under one)`,
        );
    }
    const fromFile = sharedLimitsDir({ flag: undefined, file: 'limits.json', configDir: root });
    if (!fromFile.ok) expect(fromFile.text).toContain("the config file's sharedLimits must be a directory");
    else expect.unreachable('a file was taken as the directory');
  });
});
