/**
 * outputFiles through a real server, the built-in agent and the scripted provider: copied to --output
 * after a codon succeeds, nothing from a codon whose verify gate failed, copied again with the new
 * content after a rollback and re-run; a glob matching nothing is a warning.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ServerEvent } from '../../src/core/protocol/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { writePlanAndScript, writeTurns } from '../helpers/plans.ts';
import { runToEnd, tempDir } from '../helpers/server-process.ts';

const { serve, temps } = e2eResources();

describe('outputFiles (e2e)', () => {
  it('copies after success only, and again with the new content after a rollback and re-run', async () => {
    const out = tempDir();
    temps.push(out);
    const output = join(out.path, 'results');
    const plan = `name: t
agent: builtin
codons:
  - id: one
    prompt: Do one.
    outputFiles: ["dist/**", "missing/*.txt"]
  - id: two
    prompt: Do two.
    outputFiles: ["two.txt"]
    verify: [{ run: "false" }]
`;
    const script = `turns:\n${writeTurns('dist/r.txt', 'v1')}${writeTurns('two.txt', '2')}${writeTurns('dist/r.txt', 'v2')}${writeTurns('two.txt', '2')}`;
    const { client } = await serve(plan, script, ['--output', output]);
    const failuresOfTwo = (history: ServerEvent[]) =>
      history.filter((e) => e.type === 'codon.completed' && e.data.codonId === 'two' && !e.data.success)
        .length;
    const isIdle = (e: ServerEvent) => e.type === 'server.idle' && e.data.reason !== 'startup';
    /** The history once the server idles after codon two failed `failures` times. */
    const idleAfter = async (failures: number) => {
      for (;;) {
        // Waiting from before the history is read: no idle slips between the two.
        const next = client.waitFor(isIdle, 60_000, `idle after ${failures} failure(s) of two`);
        const history = await client.syncHistory();
        const last = history.findLast((e) => e.type === 'server.idle' || e.type === 'codon.started');
        if (failuresOfTwo(history) >= failures && last !== undefined && isIdle(last)) {
          next.catch(() => {});
          return history;
        }
        await next;
      }
    };

    let history = await idleAfter(1);
    const copied = () => history.flatMap((e) => (e.type === 'outputs.copied' ? [e.data] : []));
    expect(copied()).toEqual([{ codonId: 'one', dir: output, files: ['dist/r.txt'] }]);
    expect(readFileSync(join(output, 'dist/r.txt'), 'utf8')).toBe('v1');
    expect(existsSync(join(output, 'two.txt'))).toBe(false);
    const warnings = history.flatMap((e) =>
      e.type === 'error' && e.data.code === 'OUTPUT_WARNING' ? [e.data] : [],
    );
    expect(warnings).toEqual([
      expect.objectContaining({
        severity: 'warning',
        codon: 'one',
        message: expect.stringContaining('missing/*.txt matched no file'),
      }),
    ]);

    client.send('rollback.toCodon', { codonId: 'one', checkpointType: 'start', autoRestart: true });
    history = await idleAfter(2);
    expect(copied().map((c) => c.codonId)).toEqual(['one', 'one']);
    expect(readFileSync(join(output, 'dist/r.txt'), 'utf8')).toBe('v2');
    expect(existsSync(join(output, 'two.txt'))).toBe(false);
  });

  it('copies to <execution>/output by default; an --output inside the agent root exits 2', async () => {
    const t = tempDir();
    temps.push(t);
    const plan =
      'name: t\nagent: builtin\ncodons:\n  - id: one\n    prompt: Do one.\n    outputFiles: [r.txt]\n';
    const files = writePlanAndScript(t.path, plan, `turns:\n${writeTurns('r.txt', 'R')}`);
    const exec = join(t.path, 'exec');
    const refused = await runToEnd(files.plan, exec, files.script, ['--output', join(exec, 'agentRoot/out')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is inside the agent root');
    const result = await runToEnd(files.plan, exec, files.script);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(exec, 'output/r.txt'), 'utf8')).toBe('R');
  });
});
