/** Usage errors exit 2 like every other invalid input, with commander's message; help and version exit 0. */
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, runCli } from '../../helpers/server-process.ts';

afterAll(() => killAll());

async function cli(args: string[]) {
  const proc = runCli(args);
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

describe('the ribosome command line', () => {
  it.each([
    [['--bogus'], "error: unknown option '--bogus'"],
    [['nope'], "error: unknown command 'nope'"],
    [['run'], "error: missing required argument 'plan-file'"],
    [['run', 'plan.yaml', '--port'], "error: option '--port <n>' argument missing"],
    [['doctor', '--bogus'], "error: unknown option '--bogus'"],
    [['journal', 'export', '--format', 'csv'], "error: option '--format <format>' argument 'csv' is invalid"],
    [[], 'Usage: ribosome [options] [command]'],
  ])('%j is a usage error: exit 2, and commander says why', async (args, message) => {
    const result = await cli(args);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  it.each([[['--help']], [['-V']], [['--version']], [['help', 'run']], [['runs', '--help']]])(
    '%j prints and exits 0',
    async (args) => {
      const result = await cli(args);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.length).toBeGreaterThan(0);
    },
  );
});
