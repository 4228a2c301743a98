/**
 * Trial 18 M1: a Codex codon's cost is Ribosome's estimate (Codex reports tokens, not cost), and every
 * reading surface says so: `ribosome runs` (table and --json), `ribosome log`, the --exit-when-done
 * summary and the budget message. The real Codex CLI against the scripted provider.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { CODEX } from '../../../src/agents/codex/codex-cli.ts';
import { describeWithClis } from '../../helpers/agent-clis.ts';
import { BIN, killAll, runToEnd, tempDir } from '../../helpers/server-process.ts';

const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  killAll();
  for (const dir of dirs.splice(0)) dir.remove();
});

const read = (args: string[]) => spawnSync(BIN, args, { encoding: 'utf8', timeout: 30_000 });

describeWithClis('estimated costs shown as such (Codex, e2e)', [cliBinary(CODEX)], () => {
  it('runs, log, the exit summary and the budget message mark them ~', async () => {
    const dir = tempDir('ribosome-estimate-');
    dirs.push(dir);
    const plan = join(dir.path, 'plan.yaml');
    const script = join(dir.path, 'script.yaml');
    const exec = join(dir.path, 'exec');
    writeFileSync(
      plan,
      'name: estimate\nagent: codex\ncodons:\n  - id: one\n    prompt: Do one.\n  - id: two\n    prompt: Do two.\n',
    );
    writeFileSync(script, 'turns:\n  - content: [{ text: Done. }]\n    repeat: 4\n');
    // Codex's first turn alone (its long instructions) costs far more than this budget; without the
    // proxy (which would refuse it before it went out) the turn runs and its estimated cost is seen.
    const { code, stderr } = await runToEnd(plan, exec, script, ['--max-cost', '0.001', '--no-proxy'], {
      timeoutMs: 120_000,
    });
    expect(code, stderr).toBe(1);
    const summary = stderr.trim().split('\n').at(-1) ?? '';
    expect(summary).toMatch(/, ~\$0\.\d{4}, /);
    expect(summary).toMatch(/\(plan budget exceeded: maxCostUsd 0\.0010, spent ~0\.\d+ \(estimated\)\)$/);

    const json = read(['runs', '--json', '--execution', exec]);
    expect(json.status, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject([{ costEstimated: true }]);
    const table = read(['runs', '--execution', exec]).stdout.trim().split('\n');
    expect(table[1]).toMatch(/ ~\$0\.\d{4} /);
    expect(table.at(-1)).toMatch(/^~ marks an estimate/);

    const log = read(['log', '--execution', exec]);
    expect(log.stdout).toMatch(/< one \w+ \(\d+\.\ds, ~\$0\.\d{4} estimated: its agent reports no cost\)/);
  }, 150_000);
});
