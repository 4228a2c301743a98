import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, it } from 'vitest';
import { z } from 'zod';
import { PlanProblem } from '../../src/plan/problems.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** Runs `bin/ribosome validate ...args` as a real process from the repository root. */
function validate(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      resolve(ROOT, 'bin/ribosome'),
      ['validate', ...args],
      { cwd: ROOT, timeout: 20_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        done({ code, stdout, stderr });
      },
    );
  });
}

const JsonReport = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), name: z.string(), codons: z.number(), problems: z.array(PlanProblem) }),
  z.object({ ok: z.literal(false), problems: z.array(PlanProblem) }),
]);

// Each case starts a process; run them side by side.
describe.concurrent('ribosome validate', () => {
  it('a valid plan: OK line, exit 0', async ({ expect }) => {
    const { code, stdout, stderr } = await validate('examples/plans/loop.yaml');
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: 'OK: essay-loop (7 codons)\n', stderr: '' });
  });

  it('an invalid plan: every problem with file:line:column and hint, exit 2', async ({ expect }) => {
    const { code, stdout } = await validate('examples/plans/invalid/many-problems.yaml');
    expect(code).toBe(2);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'examples/plans/invalid/many-problems.yaml:4:8 - error INVALID_VALUE at agent: "claude-cod" is not allowed for "agent".',
    );
    expect(lines[1]).toBe('  hint: Did you mean "claude-code"? Use one of: builtin, claude-code.');
    expect(lines.filter((l) => l.startsWith('examples/plans/invalid/many-problems.yaml:'))).toHaveLength(12);
    expect(lines.at(-1)).toBe('12 errors, 0 warnings');
    expect(stdout).not.toContain('OK:');
  });

  it('warnings are printed and the plan still passes', async ({ expect }) => {
    const { code, stdout } = await validate('examples/plans/sentinel-file-missing.yaml');
    expect(code).toBe(0);
    expect(stdout).toContain(
      'examples/plans/sentinel-file-missing.yaml:9:15 - warning SENTINEL_FILE_NOT_FOUND at codons[0].sentinels[0].file',
    );
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('OK: missing-sentinel-file (1 codon)');
  });

  it('--json: machine-readable problems, exit 2', async ({ expect }) => {
    const { code, stdout } = await validate('examples/plans/invalid/nested-loop.yaml', '--json');
    expect(code).toBe(2);
    const report = JsonReport.parse(JSON.parse(stdout));
    expect(report).toEqual({
      ok: false,
      problems: [
        {
          code: 'NESTED_LOOP',
          severity: 'error',
          file: resolve(ROOT, 'examples/plans/invalid/nested-loop.yaml'),
          path: 'codons[0].loop.codons[1]',
          line: 11,
          column: 11,
          message: 'Loops cannot be nested.',
          hint: expect.any(String),
        },
      ],
    });
  });

  it('--json on a valid plan', async ({ expect }) => {
    const { code, stdout } = await validate('examples/plans/sentinels.yaml', '--json');
    expect(code).toBe(0);
    expect(JsonReport.parse(JSON.parse(stdout))).toEqual({
      ok: true,
      name: 'watched',
      codons: 2,
      problems: [],
    });
  });

  it('a missing plan file: exit 2', async ({ expect }) => {
    const { code, stdout } = await validate('examples/plans/no-such-plan.yaml');
    expect(code).toBe(2);
    expect(stdout).toContain(
      'examples/plans/no-such-plan.yaml - error FILE_NOT_FOUND: Cannot read the plan file: not found.',
    );
  });
});
