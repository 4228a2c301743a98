import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { simplePlan, writePlanAndScript, writeTurns } from '../../helpers/plans.ts';
import { killAll, runCli, tempDir } from '../../helpers/server-process.ts';

/** `ribosome run` refuses data and output directories that cannot work, before anything starts. */

const temps: Array<{ remove(): void }> = [];
afterEach(() => killAll());
afterAll(() => {
  for (const t of temps.splice(0)) t.remove();
});

async function run(args: string[], cwd: string) {
  const proc = runCli(
    ['run', 'plan.yaml', '--headless', '--exit-when-done', '--scripted-provider', 'script.yaml', ...args],
    {
      cwd,
    },
  );
  const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
  const { code } = await proc.exited;
  clearTimeout(timer);
  return { code, stderr: proc.stderr() };
}

function project() {
  const t = tempDir();
  temps.push(t);
  writePlanAndScript(t.path, simplePlan(['one']), `turns:\n${writeTurns('r.txt', 'r')}`);
  writeFileSync(join(t.path, 'in.txt'), 'data');
  return t.path;
}

describe('run: the data and output directories', () => {
  it('--data . with the default ./ribosome-runs (it holds the execution directory): exit 2, nothing started', async () => {
    const dir = project();
    const result = await run(['--data', '.'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `ribosome: --data ${dir} contains the execution directory ${join(dir, 'ribosome-runs', 'test')}: the data directory is read-only for the agent`,
    );
    expect(existsSync(join(dir, 'ribosome-runs'))).toBe(false);
  });

  it('--data inside the agent root, or naming a file: exit 2 with a sentence', async () => {
    const dir = project();
    const inside = await run(['--execution', 'ex', '--data', 'ex/agentRoot/d'], dir);
    expect(inside.code).toBe(2);
    expect(inside.stderr).toContain(`is inside the agent root ${join(dir, 'ex', 'agentRoot')}`);
    const file = await run(['--execution', 'ex', '--data', 'in.txt'], dir);
    expect(file.code).toBe(2);
    expect(file.stderr).toContain(`ribosome: --data ${join(dir, 'in.txt')} is a file, not a directory`);
    expect(existsSync(join(dir, 'ex', '.ribosome'))).toBe(false);
  });

  it('--output through a symlink into the agent root: exit 2, nothing copied there', async () => {
    const dir = project();
    mkdirSync(join(dir, 'ex', 'agentRoot', 'out'), { recursive: true });
    symlinkSync(join(dir, 'ex', 'agentRoot', 'out'), join(dir, 'linkout'));
    const result = await run(['--execution', 'ex', '--output', 'linkout'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `--output ${join(dir, 'linkout')} (it leads to ${join(dir, 'ex', 'agentRoot', 'out')}) is inside the agent root`,
    );
    expect(readdirSync(join(dir, 'ex', 'agentRoot', 'out'))).toEqual([]);
  });
});
