import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveServerSettings } from '../../../src/plan/config/server-config.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { simplePlan } from '../../helpers/plans.ts';
import { runCli, tempDir } from '../../helpers/server-process.ts';
import { problemsOf, yaml } from '../../plan/helpers.ts';

const { temps } = e2eResources();
const SECRET = 'val-s3cret-77';

describe('notify entries in the plan', () => {
  it('each bad entry is a problem with its path and a hint, and never echoes the URL', async () => {
    const problems = await problemsOf(
      yaml(
        'name: t',
        'agent: builtin',
        'notify:',
        `  - webhook: "ftp://u:${SECRET}@example.com/x?token=${SECRET}"`,
        '    on: [run-done]',
        '  - on: [stalled]',
        '  - webhook: https://example.com/h',
        '    on: []',
        '  - webhook: https://example.com/h',
        '    extra: 1',
        'codons: []',
      ),
    );
    expect(problems.map((p) => [p.code, p.path, p.line])).toEqual([
      ['INVALID_URL', 'notify[0].webhook', 4],
      ['INVALID_VALUE', 'notify[0].on[0]', 5],
      ['MISSING_FIELD', 'notify[1].webhook', 6],
      [expect.any(String), 'notify[2].on', 8],
      ['UNKNOWN_FIELD', 'notify[3].extra', 10],
    ]);
    expect(problems[0]?.hint).toContain('https://');
    expect(problems[1]?.hint).toContain('run-completed, run-failed, codon-failed, budget-exceeded, stalled');
    expect(JSON.stringify(problems)).not.toContain(SECRET);
  });

  it('a good entry loads with every kind when `on` is left out', async () => {
    const problems = await problemsOf(
      yaml('name: t', 'notify:', '  - webhook: https://example.com/h', 'codons: []'),
    );
    expect(problems).toEqual([]);
  });
});

describe('notify entries in the config file', () => {
  it('are validated with their path; a good list is kept with its defaults', () => {
    const bad = resolveServerSettings({ notify: [{ webhook: `nope?token=${SECRET}`, on: ['later'] }] });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.message).toContain('notify[0].webhook');
    expect(bad.message).toContain('notify[0].on[0]');
    expect(bad.message).not.toContain(SECRET);
    const good = resolveServerSettings({ notify: [{ webhook: 'https://example.com/h' }] });
    expect(good.ok && good.value.notify).toEqual([
      {
        webhook: 'https://example.com/h',
        on: [
          'run-completed',
          'run-failed',
          'codon-failed',
          'budget-exceeded',
          'stalled',
          'usage-limit',
          'approval-needed',
        ],
      },
    ]);
    const none = resolveServerSettings({});
    expect(none.ok && none.value.notify).toEqual([]);
  });

  it('`ribosome run --config` with a bad entry exits 2 and says where', async () => {
    const t = tempDir();
    temps.push(t);
    writeFileSync(join(t.path, 'plan.yaml'), simplePlan(['one']));
    writeFileSync(join(t.path, 'config.yaml'), `notify:\n  - webhook: "https://example.com/h"\n    on: []\n`);
    const proc = runCli([
      'run',
      join(t.path, 'plan.yaml'),
      '--headless',
      '--execution',
      join(t.path, 'exec'),
      '--config',
      join(t.path, 'config.yaml'),
    ]);
    expect((await proc.exited).code).toBe(2);
    expect(proc.stderr()).toContain(
      `config.yaml:3:9 - error INVALID_VALUE at notify[0].on: "on" must have at least 1 item.`,
    );
  });
});
