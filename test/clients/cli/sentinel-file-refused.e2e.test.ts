/**
 * `ribosome run` with a sentinel file that cannot be loaded (trial 17b M1): it refuses to start, exit 2,
 * naming the file and its problem, as for the same mistake written inline. A sentinel may be a guard,
 * so a typo in it must never mean a run without it.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { writePlanAndScript } from '../../helpers/plans.ts';
import { killAll, runToEnd, tempDir } from '../../helpers/server-process.ts';

const temps: Array<{ remove(): void }> = [];
afterEach(() => killAll());
afterAll(() => {
  for (const t of temps.splice(0)) t.remove();
});

const GUARD = `id: guard
model: claude-haiku-4-5
userPrompt: "{{events}}"
trigger: { type: event, eventTypes: [tool.result] }
output: { type: text }
actions:
  - when: [{ path: repeating, op: equals, value: true }]
    do: halt
`;

describe('ribosome run with a sentinel that cannot be loaded', () => {
  it.each([
    ['an invalid file', '{ file: guard.yaml }', 'ACTION_WHEN_MISMATCH'],
    ['a missing file', '{ file: gone.yaml }', 'SENTINEL_FILE_NOT_FOUND'],
  ])('%s: exit 2 before anything runs, naming the file and the problem', async (_, ref, code) => {
    const t = tempDir();
    temps.push(t);
    writeFileSync(join(t.path, 'guard.yaml'), GUARD);
    const f = writePlanAndScript(
      t.path,
      `name: guarded\nagent: builtin\ncodons:\n  - id: one\n    prompt: Do it.\n    sentinels: [${ref}]\n`,
      'turns: []\n',
    );
    const exec = join(t.path, 'exec');
    const result = await runToEnd(f.plan, exec, f.script);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`error ${code}`);
    expect(result.stderr).toContain(join(t.path, ref.includes('gone') ? 'gone.yaml' : 'guard.yaml'));
    expect(existsSync(exec)).toBe(false);
  });
});
