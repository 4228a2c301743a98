/**
 * Record and replay through the real binary with the built-in agent (docs/testing-plans.md): a
 * three-codon plan recorded against the scripted provider, then replayed offline: the same outcome
 * (--check), a changed gate, a changed prompt (a miss naming the first difference), --on-miss live,
 * no planted key in the cassette, and a replay killed mid-codon that resumes from the cassette.
 * The same with each agent CLI: replay.agents.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCassette } from '../../../src/llm/cassette/read.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { pidsWith, waitFor } from '../../helpers/processes.ts';
import {
  cliToEnd,
  firstListening,
  journalRows,
  ROOT,
  runCli,
  tempDir,
} from '../../helpers/server-process.ts';

const { temps } = e2eResources();

const KEY = 'sk-ant-planted-4f1c0a9e7b3d2c1e';
const MARK = 3 + Math.floor(Math.random() * 900) / 1000;

/** Codon two runs `sleep MARK`: a window to kill the server in, and a tool result that says so. */
const PLAN = (prompt2 = 'Do two.', gate = 'test -f three.txt') => `name: recorded
agent: builtin
codons:
  - id: one
    name: One
    prompt: Do one.
  - id: two
    name: Two
    prompt: ${prompt2}
  - id: three
    name: Three
    prompt: Do three.
    verify: [{ run: "${gate}" }]
`;

const SCRIPT = `tracks:
  - name: one
    match: { firstUser: "Do one." }
    turns:
      - content:
          - text: Writing one.txt, then listing.
          - tool_use: { name: Write, input: { file_path: one.txt, content: "1" } }
      - content:
          - tool_use: { name: Bash, input: { command: "ls" } }
      - content: [{ text: Done with one. }]
  - name: two
    match: { firstUser: "Do two" }
    turns:
      - content:
          - tool_use: { name: Bash, input: { command: "sleep ${MARK} && echo slept > two.txt" } }
      - content: [{ text: Done with two. }]
  - name: three
    match: { firstUser: "Do three." }
    turns:
      - content:
          - tool_use: { name: Write, input: { file_path: three.txt, content: "3" } }
      - content: [{ text: Done with three. }]
`;

function temp(): string {
  const t = tempDir();
  temps.push(t);
  return t.path;
}

/** `ribosome ARGS` to its end (killed after 90_000 ms). */
const cli = (args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 90_000) =>
  cliToEnd(args, env, timeoutMs);

/** `ribosome replay FROM` headless to its end, in the execution INTO, with more flags. */
const replayInto = (from: string, into: string, ...flags: string[]) =>
  cli(['replay', from, '--headless', '--exit-when-done', ...flags, '--execution', into]);

function files(dir: string, plan: string): { plan: string; script: string } {
  writeFileSync(join(dir, 'plan.yaml'), plan);
  writeFileSync(join(dir, 'script.yaml'), SCRIPT);
  return { plan: join(dir, 'plan.yaml'), script: join(dir, 'script.yaml') };
}

/** One recording for the file: the plan run with --record, the key planted in the environment. */
let recording: Promise<{ dir: string; exec: string; script: string }> | undefined;
function recorded() {
  recording ??= (async () => {
    const dir = temp();
    const { plan, script } = files(dir, PLAN());
    const exec = join(dir, 'recorded');
    const run = await cli(
      [
        'run',
        plan,
        '--record',
        '--headless',
        '--exit-when-done',
        '--scripted-provider',
        script,
        '--execution',
        exec,
      ],
      { ANTHROPIC_API_KEY: KEY },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`recorded the run's LLM exchanges in ${exec}/cassette.jsonl`);
    return { dir, exec, script };
  })();
  return recording;
}

const toolResults = (exec: string) =>
  journalRows(exec)
    .filter((e) => e.type === 'tool.result')
    .map((e) => [e.data.codonId, e.data.toolName, e.data.isError]);

// Each test runs two to four whole `ribosome` processes: minutes on a loaded two-core machine.
describe('ribosome replay with the built-in agent (e2e)', { timeout: 240_000 }, () => {
  it('replays offline to the same outcome: codons, tool calls, checkpoint trees, costs, gates; no key in the cassette', async () => {
    const { exec } = await recorded();
    const text = readFileSync(join(exec, 'cassette.jsonl'), 'utf8');
    expect(text).not.toContain(KEY);
    const { cassette } = readCassette(exec);
    expect(cassette.exchanges.map((e) => [e.caller?.id, e.attempt, e.turn])).toEqual([
      ['one', 1, 1],
      ['one', 1, 2],
      ['one', 1, 3],
      ['two', 1, 1],
      ['two', 1, 2],
      ['three', 1, 1],
      ['three', 1, 2],
    ]);
    expect(cassette.outcome?.codons.map((c) => [c.codonId, c.status, c.gates])).toEqual([
      ['one', 'completed', []],
      ['two', 'completed', []],
      ['three', 'completed', [{ name: 'gate 1', command: 'test -f three.txt', passed: true }]],
    ]);

    const replay = join(temp(), 'replay');
    // No provider and no key: the replay is offline.
    const run = await cli(
      ['replay', exec, '--headless', '--exit-when-done', '--check', '--execution', replay],
      {
        ANTHROPIC_API_KEY: '',
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('--check: the replay matches the recording (3 codons');
    expect(toolResults(replay)).toEqual(toolResults(exec));
  });

  it('a changed gate changes only that gate and its codon: the check names both and exits 1', async () => {
    const { exec } = await recorded();
    const dir = temp();
    const { plan } = files(dir, PLAN('Do two.', 'test -f four.txt'));
    const run = await cli([
      'replay',
      exec,
      '--plan',
      plan,
      '--headless',
      '--exit-when-done',
      '--check',
      '--execution',
      join(dir, 'replay'),
    ]);
    expect(run.code).toBe(1);
    const listed = run.stderr
      .slice(run.stderr.indexOf('--check: the replay differs'))
      .trim()
      .split('\n')
      .slice(1);
    expect(listed).toEqual([
      // With why the codon failed in the replay: its gate.
      expect.stringMatching(
        /^ {2}- codon three: completed in the recording, failed in the replay \(verification gate 1\/1 `test -f four\.txt` exited with code 1; .*\)$/,
      ),
      '  - codon three: gate 1 (test -f three.txt) passed in the recording, failed in the replay',
    ]);
  });

  it('a changed prompt in codon two fails codon two with a miss that names the first difference', async () => {
    const { exec } = await recorded();
    const dir = temp();
    const { plan } = files(dir, PLAN('Do two, carefully.'));
    const replay = join(dir, 'replay');
    const run = await replayInto(exec, replay, '--plan', plan);
    expect(run.code).toBe(1);
    const miss =
      'Replay: no recorded exchange of codon two matches this request (POST /v1/messages). Nearest: exchange 4 (codon two, turn 1); they first differ at messages[0].content[0].text: recorded "Do two.", now "Do two, carefully."';
    expect(run.stderr).toContain(miss);
    const ends = journalRows(replay).filter((e) => e.type === 'codon.completed');
    expect(ends.map((e) => [e.data.codonId, e.data.success])).toEqual([
      ['one', true],
      ['two', false],
    ]);
    expect(ends[1]?.data.failureReason).toMatchObject({ type: 'api-error', retriable: false });
    expect(JSON.stringify(ends[1]?.data.failureReason)).toContain(
      'Replay: no recorded exchange of codon two',
    );
  });

  it("--on-miss live asks the provider for what changed; the replay's own cassette is a new recording", async () => {
    const { exec, script } = await recorded();
    const dir = temp();
    const { plan } = files(dir, PLAN('Do two, carefully.'));
    const replay = join(dir, 'replay');
    const run = await replayInto(
      exec,
      replay,
      '--plan',
      plan,
      '--on-miss',
      'live',
      '--scripted-provider',
      script,
    );
    expect(run.code, run.stderr).toBe(0);
    // The replay's own cassette is a whole recording of it: the replayed exchanges and the new ones.
    const { cassette } = readCassette(replay);
    expect(cassette.exchanges.map((e) => [e.caller?.id, e.turn])).toEqual([
      ['one', 1],
      ['one', 2],
      ['one', 3],
      ['two', 1],
      ['two', 2],
      ['three', 1],
      ['three', 2],
    ]);
    expect(JSON.stringify(cassette.exchanges[3]?.request)).toContain('Do two, carefully.');
    expect(cassette.outcome?.codons.map((c) => c.status)).toEqual(['completed', 'completed', 'completed']);
    // So it replays the changed plan offline: the recording is up to date.
    const again = await cli([
      'replay',
      replay,
      '--headless',
      '--exit-when-done',
      '--check',
      '--execution',
      join(dir, 'again'),
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('--check: the replay matches the recording (3 codons');
  });

  it('refuses what it cannot do, saying why: bad options, no cassette, its own recording, a half recording', async () => {
    const { dir, exec, script } = await recorded();
    const refused = async (args: string[]) => {
      const run = await cli(args);
      expect(run.code, run.stderr).toBe(2);
      return run.stderr;
    };
    expect(await refused(['replay', exec, '--on-miss', 'maybe'])).toContain(
      'ribosome: --on-miss must be fail or live, got "maybe"',
    );
    const empty = temp();
    expect(await refused(['replay', empty])).toContain(`${empty}/cassette.jsonl: no cassette there`);
    const jsonl = join(empty, 'events.jsonl');
    writeFileSync(jsonl, '{"type":"codon.started","data":{}}\n');
    expect(await refused(['replay', jsonl])).toContain(
      'events.jsonl:1: not a cassette line (its type is "codon.started"; a cassette has cassette, exchange and outcome lines)',
    );
    // The recording itself, named through a symlink, is not a replay's execution.
    const link = join(empty, 'link');
    symlinkSync(exec, link);
    expect(await refused(['replay', exec, '--execution', link])).toContain('is the recorded execution');
    // An execution that ran unrecorded cannot start recording half-way.
    const half = join(dir, 'unrecorded');
    const plain = await cli([
      'run',
      join(dir, 'plan.yaml'),
      '--headless',
      '--exit-when-done',
      '--scripted-provider',
      script,
      '--execution',
      half,
    ]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(
      await refused([
        'run',
        join(dir, 'plan.yaml'),
        '--record',
        '--headless',
        '--scripted-provider',
        script,
        '--execution',
        half,
      ]),
    ).toContain(`--record: ${half} already holds runs that were not recorded`);
    expect(
      await refused([
        'run',
        join(dir, 'plan.yaml'),
        '--record',
        '--no-proxy',
        '--execution',
        join(empty, 'x'),
      ]),
    ).toContain('A recording (--record) needs the LLM proxy');
  });

  it('a recording cloned from a workspace is replayed from that workspace at the recorded commit', async () => {
    const dir = temp();
    const repo = join(dir, 'repo');
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        encoding: 'utf8',
      });
    execFileSync('git', ['init', '-q', repo]);
    writeFileSync(join(repo, 'README.md'), 'the project\n');
    git('add', '.');
    git('commit', '-qm', 'start');
    const commit = git('rev-parse', 'HEAD').trim();
    const { plan, script } = files(dir, PLAN());
    const exec = join(dir, 'recorded');
    const run = await cli([
      'run',
      plan,
      '--record',
      '--workspace',
      repo,
      '--headless',
      '--exit-when-done',
      '--scripted-provider',
      script,
      '--execution',
      exec,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(readCassette(exec).cassette.header.workspace).toBe(`${repo}@${commit}`);
    // The workspace moves on; the replay still starts where the recording did.
    writeFileSync(join(repo, 'README.md'), 'changed since\n');
    git('commit', '-qam', 'later');
    const replay = join(dir, 'replay');
    const again = await replayInto(exec, replay, '--check');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`agent root cloned from ${repo} at ${commit}`);
    expect(readFileSync(join(replay, 'agentRoot', 'README.md'), 'utf8')).toBe('the project\n');
    expect(again.stderr).toContain('--check: the replay matches the recording (3 codons');
  });

  it('a replay killed mid-codon (kill -9) resumes from the cassette like any run', async () => {
    const { exec } = await recorded();
    const replay = join(temp(), 'replay');
    const first = runCli(['replay', exec, '--headless', '--execution', replay]);
    const listened = await firstListening(first.child, first.stdout, first.exited, 30_000);
    expect('url' in listened, first.stderr()).toBe(true);
    await waitFor(() => pidsWith(`sleep ${MARK}`).length > 0, "codon two's command", 30_000);
    first.kill('SIGKILL');
    await first.exited;
    const again = await replayInto(exec, replay, '--check');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('the previous run crashed');
    expect(again.stderr).toContain('--check: the replay matches the recording (3 codons');
  });

  it('cassette show lists each exchange; to-script makes a script that runs the plan to the same trees', async () => {
    const { dir, exec } = await recorded();
    const shown = await cli(['cassette', 'show', exec]);
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/cassette\.jsonl: plan recorded \(.+plan\.yaml\), recorded \S+; 7 exchanges$/);
    expect(lines[1]).toMatch(/^ {3}1 {2}codon one #1 {2}claude-sonnet-4-5 {2}200 in \d+ ms \d+→\d+ tokens$/);
    expect(lines[2]).toContain(
      '"Writing one.txt, then listing." + Write({"file_path":"one.txt","content":"1"})',
    );
    expect(lines).toContain(`outcome (${readCassette(exec).cassette.outcome?.at}):`);

    const script = join(temp(), 'edited.yaml');
    const made = await cli(['cassette', 'to-script', exec, '--out', script]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain(`wrote 3 tracks to ${script}`);
    const again = join(temp(), 'from-script');
    const run = await cli([
      'run',
      join(dir, 'plan.yaml'),
      '--record',
      '--headless',
      '--exit-when-done',
      '--scripted-provider',
      script,
      '--execution',
      again,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const trees = (e: string) =>
      readCassette(e).cassette.outcome?.codons.map((c) => [c.codonId, c.tree, c.cost]);
    expect(trees(again)).toEqual(trees(exec));

    const bad = await cli(['cassette', 'show', join(dir, 'plan.yaml')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('plan.yaml:1: not a JSON line; is this a cassette (cassette.jsonl)?');
  });
});

describe('ribosome replay and sentinels (e2e)', { timeout: 240_000 }, () => {
  const DEMO_PLAN = join(ROOT, 'examples/demo/plan.yaml');
  const DEMO_SCRIPT = join(ROOT, 'examples/scripts/demo.yaml');

  /** The demo plan with the narrator's system prompt changed: the question a sentinel's author asks. */
  function changedNarrator(): string {
    const dir = temp();
    const sentinels = join(ROOT, 'examples/sentinels');
    const narrator = readFileSync(join(sentinels, 'narrator.yaml'), 'utf8').replace(
      "You narrate a coding agent's work for a person who is watching it.",
      "You narrate a coding agent's work, briefly.",
    );
    writeFileSync(join(dir, 'narrator.yaml'), narrator);
    const plan = readFileSync(DEMO_PLAN, 'utf8')
      .replace('../sentinels/narrator.yaml', join(dir, 'narrator.yaml'))
      .replace('../sentinels/', `${sentinels}/`);
    writeFileSync(join(dir, 'plan.yaml'), plan);
    return join(dir, 'plan.yaml');
  }

  it('a changed sentinel finds no recorded answer; with --sentinels live it asks the provider while the agents replay', async () => {
    const exec = join(temp(), 'recorded');
    const run = await cli([
      'run',
      DEMO_PLAN,
      '--record',
      '--headless',
      '--exit-when-done',
      '--scripted-provider',
      DEMO_SCRIPT,
      '--execution',
      exec,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const plan = changedNarrator();

    const missed = join(temp(), 'missed');
    const offline = await replayInto(exec, missed, '--plan', plan, '--check');
    // The agents replay to their end; the narrator's calls fail, each saying why, and --check names it.
    expect(offline.code, offline.stderr).toBe(1);
    expect(offline.stderr).toContain('ribosome: done: 3/3 codons');
    expect(offline.stderr).toMatch(
      /codon write-hello: sentinel narrator gave 1 outputs, 0 errors in the recording, 0 outputs, \d+ errors in the replay/,
    );
    expect(offline.stderr).toContain(
      `Replay: no recorded exchange of sentinel narrator matches this request (POST /v1/messages). Nearest: exchange 3 (sentinel narrator, turn 1); they first differ at system: recorded "You narrate a coding agent's work for a person who is watching it.`,
    );
    const errors = journalRows(missed).filter((e) => e.type === 'sentinel.error');
    expect(errors.length).toBeGreaterThan(0);
    expect(
      errors.every((e) => e.data.sentinelId === 'narrator' && e.data.errorType === 'llm-call-failed'),
    ).toBe(true);
    // The loop detector, unchanged, still answers from the cassette, and steers the agent as before.
    const outputs = (dir: string, id: string) =>
      journalRows(dir)
        .filter((e) => e.type === 'sentinel.output' && e.data.sentinelId === id)
        .map((e) => e.data.content);
    expect(outputs(missed, 'loop-detector')).toEqual(outputs(exec, 'loop-detector'));

    const live = join(temp(), 'live');
    const asked = await replayInto(
      exec,
      live,
      '--plan',
      plan,
      '--sentinels',
      'live',
      '--scripted-provider',
      DEMO_SCRIPT,
    );
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stderr).not.toContain('Replay: no recorded exchange');
    expect(outputs(live, 'narrator').length).toBeGreaterThan(0);
    // The sentinels went to the provider, with their new prompt; the agents were replayed.
    const { exchanges } = readCassette(live).cassette;
    const narrated = exchanges.filter((e) => e.caller?.id === 'narrator');
    expect(narrated.length).toBeGreaterThan(0);
    expect(narrated.every((e) => JSON.stringify(e.request).includes('work, briefly.'))).toBe(true);
  });
});
