import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/processes.ts';
import { journalRows, killAll, runCli, tempDir } from '../../helpers/server-process.ts';

/**
 * Runs on one credential share a usage limit (`ribosome run --shared-limits DIR`,
 * docs/unattended.md#runs-on-one-credential-wait-together): real `ribosome run` processes, real
 * journals, the built-in agent and the scripted provider playing the limit (each run its own script).
 * The order is fixed by the agents' own shell commands: the limited run meets its limit only once the
 * other run's codon is at work, and that codon ends only once the shared record exists.
 */

const temps: Array<{ remove(): void }> = [];
afterEach(() => {
  killAll();
  for (const t of temps.splice(0)) t.remove();
});
const TIMEOUT = 120_000;

const PLAN = `name: shared
agent: builtin
model: claude-sonnet-4-5
onUsageLimit: { marginMs: 0 }
codons:
  - { id: one, name: One, prompt: First. }
  - { id: two, name: Two, prompt: Second. }
`;
const KEY = 'sk-ant-api03-shared-credential-0123456789';
const OTHER_KEY = 'sk-ant-api03-another-credential-987654321';

/** A script whose codon one plays `one` (turns, YAML list items) and codon two answers at once. */
const script = (one: string) => `tracks:
  - name: one
    match: { firstUser: "First." }
    turns:
${one.replace(/^(?=.)/gm, '      ')}  - name: two
    match: { firstUser: "Second." }
    turns:
      - content: [{ text: Two done. }]
turns: []
`;
const bash = (command: string) =>
  `- content: [{ tool_use: { name: Bash, input: { command: ${JSON.stringify(command)} } } }]\n`;
const DONE = '- content: [{ text: One done. }]\n';
const LIMIT = '- usageLimit: { resetsIn: 4 }\n';

function setup() {
  const t = tempDir();
  temps.push(t);
  const plan = join(t.path, 'plan.yaml');
  writeFileSync(plan, PLAN);
  const limits = join(t.path, 'usage-limits');
  const gate = join(t.path, 'gated-called');
  const write = (name: string, text: string) => {
    const file = join(t.path, `${name}.yaml`);
    writeFileSync(file, text);
    return file;
  };
  return {
    root: t.path,
    plan,
    limits,
    /** Meets the limit (reset in 4 s) once the gated one is at work, succeeds after. */
    limiting: write(
      'limiting',
      script(`${bash(`while [ ! -e '${gate}' ]; do sleep 0.1; done`)}${LIMIT}${DONE}`),
    ),
    /** At work before the limit is met, ends once a run has noted it: its first codon ends while the limit holds. */
    gated: write(
      'gated',
      script(
        `${bash(`touch '${gate}'; until ls '${limits}'/*.json >/dev/null 2>&1; do sleep 0.1; done`)}${DONE}`,
      ),
    ),
    /** Meets the limit at its first request, succeeds after. */
    limitingAlone: write('limiting-alone', script(`${LIMIT}${DONE}`)),
    plain: write('plain', script(DONE)),
  };
}
type Setup = ReturnType<typeof setup>;

/** `ribosome run` to its end on `script` with `key`, sharing the setup's limits. */
function run(s: Setup, name: string, script: string, key: string) {
  const exec = join(s.root, name);
  const proc = runCli(
    [
      ...['run', s.plan, '--headless', '--exit-when-done', '--no-sandbox', '--execution', exec],
      ...['--scripted-provider', script, '--shared-limits', s.limits],
    ],
    {
      env: {
        RIBOSOME_AGENT_MAX_RETRIES: '0',
        ANTHROPIC_API_KEY: key,
        ANTHROPIC_AUTH_TOKEN: '',
        CLAUDE_CODE_OAUTH_TOKEN: '',
      },
    },
  );
  return { exec, done: proc.exited.then((exit) => ({ ...exit, stderr: proc.stderr() })) };
}

const events = (exec: string) => journalRows(exec).map(({ type, data }) => ({ type, data }));
const failedAttempts = (exec: string) =>
  events(exec)
    .filter((e) => e.type === 'codon.completed' && e.data.success === false)
    .map((e) => e.data.codonId);
const records = (s: Setup) => readdirSync(s.limits).filter((name) => name.endsWith('.json'));

/** The shared record: one, named by agent and credential hash, without the key; its reset. */
function theRecord(s: Setup, by: string): string {
  expect(records(s)).toEqual([expect.stringMatching(/^builtin-[0-9a-f]{16}\.json$/)]);
  const text = readFileSync(join(s.limits, records(s)[0] ?? ''), 'utf8');
  expect(text).not.toContain(KEY);
  const record = JSON.parse(text) as { until: string; by: string };
  expect(record.by).toBe(by);
  return record.until;
}

/** The held run waited once, for `codonId`, until `until`, with no failed attempt; it started that codon after the wait. */
function expectHeld(exec: string, codonId: string, until: string): void {
  expect(failedAttempts(exec)).toEqual([]);
  const list = events(exec);
  expect(list.filter((e) => e.type === 'usageLimit.waiting')).toEqual([
    {
      type: 'usageLimit.waiting',
      data: expect.objectContaining({ codonId, agent: 'builtin', resetsAt: until }),
    },
  ]);
  const waitedAt = list.findIndex((e) => e.type === 'usageLimit.waiting');
  const startedAt = list.findIndex((e) => e.type === 'codon.started' && e.data.codonId === codonId);
  expect(startedAt).toBeGreaterThan(waitedAt);
  expect(list).toContainEqual({
    type: 'usageLimit.ended',
    data: expect.objectContaining({ codonId, how: 'reset' }),
  });
}

describe('runs sharing a usage limits directory', () => {
  it('a run on the same credential finishing a codon meanwhile does not start its next against the limit: it waits for the reset, then both finish', {
    timeout: TIMEOUT,
  }, async () => {
    const s = setup();
    const a = run(s, 'a', s.limiting, KEY);
    const b = run(s, 'b', s.gated, KEY);
    for (const end of await Promise.all([a.done, b.done])) expect(end.code, end.stderr).toBe(0);
    const until = theRecord(s, a.exec);
    // The run that met it: one failed attempt, a wait, the codon again.
    expect(failedAttempts(a.exec)).toEqual(['one']);
    expect(events(a.exec).filter((e) => e.type === 'usageLimit.waiting')).toHaveLength(1);
    // The other: its first codon ran, its second waited for the same reset.
    expect(
      events(b.exec).filter((e) => e.type === 'codon.completed' && e.data.codonId === 'one'),
    ).toHaveLength(1);
    expectHeld(b.exec, 'two', until);
  });

  it('a run on the same credential started during the limit waits before its first codon', {
    timeout: TIMEOUT,
  }, async () => {
    const s = setup();
    const a = run(s, 'a', s.limitingAlone, KEY);
    await waitFor(
      () => existsSync(s.limits) && records(s).length > 0,
      'the first run to note its limit',
      60_000,
    );
    const b = run(s, 'b', s.plain, KEY);
    for (const end of await Promise.all([a.done, b.done])) expect(end.code, end.stderr).toBe(0);
    expectHeld(b.exec, 'one', theRecord(s, a.exec));
  });

  it('a run on another credential does not wait for it', { timeout: TIMEOUT }, async () => {
    const s = setup();
    const a = run(s, 'a', s.limiting, KEY);
    const c = run(s, 'c', s.gated, OTHER_KEY);
    for (const end of await Promise.all([a.done, c.done])) expect(end.code, end.stderr).toBe(0);
    theRecord(s, a.exec);
    expect(failedAttempts(a.exec)).toEqual(['one']);
    // Its second codon started while the limit held, on its own credential.
    expect(events(c.exec).map((e) => e.type)).not.toContain('usageLimit.waiting');
    expect(failedAttempts(c.exec)).toEqual([]);
    expect(events(c.exec).filter((e) => e.type === 'codon.completed')).toHaveLength(2);
  });

  it('a file given as the directory is refused before anything starts: exit 2, and why', async () => {
    const s = setup();
    const file = join(s.root, 'not-a-dir');
    writeFileSync(file, '');
    const exec = join(s.root, 'x');
    const proc = runCli(['run', s.plan, '--headless', '--execution', exec, '--shared-limits', file]);
    expect((await proc.exited).code).toBe(2);
    expect(proc.stderr()).toContain(`ribosome: --shared-limits must be a directory, and ${file} is a file`);
    expect(existsSync(exec)).toBe(false);
  });
});
