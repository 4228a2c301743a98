import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { journalRows, killAll, runToEnd, tempDir } from '../helpers/server-process.ts';

/**
 * The example of docs/unattended.md runs as it says, offline: a provider overload answered by
 * a retry with the fallback model, a gate failing and fed back until it passes, a loop until verify
 * ending after its first iteration, and a webhook that cannot be reached costing only a warning.
 */

const dirs: Array<{ remove(): void }> = [];
afterAll(() => {
  killAll();
  for (const dir of dirs) dir.remove();
});

describe('examples/plans/unattended.yaml', () => {
  it('runs to its end with its script, exit 0, retrying, feeding back and stopping the loop early', async () => {
    const dir = tempDir('ribosome-unattended-');
    dirs.push(dir);
    const run = await runToEnd(
      'examples/plans/unattended.yaml',
      dir.path,
      'examples/scripts/unattended.yaml',
      [],
      { timeoutMs: 90_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(dir.path, 'agentRoot', 'greeting.txt'), 'utf8')).toBe(
      'hello, world\n-- ribosome\n',
    );

    const events = journalRows(dir.path);
    const of = (type: string) => events.filter((e) => e.type === type).map((e) => e.data);
    expect(of('codon.started').map((d) => [d.codonId, d.attempt, d.model])).toEqual([
      ['write-greeting', 1, 'claude-sonnet-4-5'],
      ['write-greeting', 2, 'claude-haiku-4-5'],
      ['sign#0', 1, 'claude-sonnet-4-5'],
    ]);
    const infos = of('info').map((d) => String(d.message));
    expect(infos).toContain(
      'switching codon write-greeting to fallback model claude-haiku-4-5 after overload',
    );
    expect(
      infos.some((m) => m.startsWith('codon write-greeting failed (overload); attempt 2 of 3 in ')),
    ).toBe(true);
    expect(infos.some((m) => /feedback round 1 of 2/.test(m))).toBe(true);
    expect(of('verify.completed').map((d) => [d.codonId, d.round, d.passed])).toEqual([
      ['write-greeting', 0, false],
      ['write-greeting', 1, true],
      ['sign#0', 0, true],
    ]);
    expect(of('codon.completed').map((d) => [d.codonId, d.success])).toEqual([
      ['write-greeting', false],
      ['write-greeting', true],
      ['sign#0', true],
    ]);
    expect(of('server.idle').at(-1)?.reason).toBe('all-codons-completed');
    // The webhook of the example listens nowhere: a warning, never a failed run.
    const undelivered = of('error').filter((d) => d.code === 'NOTIFY_FAILED');
    expect(undelivered.length).toBeGreaterThan(0);
    expect(undelivered.every((d) => d.severity === 'warning')).toBe(true);
  });
});
