import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it, onTestFinished } from 'vitest';
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
    expect(lines[1]).toBe(
      '  hint: Did you mean "claude-code"? Use one of: builtin, claude-code, codex, gemini, opencode.',
    );
    expect(lines.filter((l) => l.startsWith('examples/plans/invalid/many-problems.yaml:'))).toHaveLength(12);
    expect(lines.at(-1)).toBe('12 errors, 0 warnings');
    expect(stdout).not.toContain('OK:');
  });

  it('warnings are printed and the plan still passes', async ({ expect, onTestFinished }) => {
    const dir = mkdtempSync(join(tmpdir(), 'ribosome-validate-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(
      join(dir, 'watch.yaml'),
      'id: watch\nmodel: m\nuserPrompt: "{{events}}"\ntrigger: { type: event, eventTypes: [tool.reslt] }\n',
    );
    writeFileSync(
      join(dir, 'plan.yaml'),
      'name: warned\ncodons:\n  - id: one\n    prompt: hi\n    sentinels: [{ file: watch.yaml }]\n',
    );
    const { code, stdout } = await validate(join(dir, 'plan.yaml'));
    expect(code).toBe(0);
    expect(stdout).toContain('watch.yaml:4:38 - warning UNKNOWN_EVENT_TYPE at trigger.eventTypes[0]');
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('OK: warned (1 codon)');
  });

  it('a sentinel file the plan names that cannot be loaded is an error, as inline (trial 17b M1)', async ({
    expect,
    onTestFinished,
  }) => {
    const missing = await validate('examples/plans/invalid/sentinel-file-missing.yaml');
    expect(missing.code).toBe(2);
    expect(missing.stdout).toContain(
      'examples/plans/invalid/sentinel-file-missing.yaml:9:15 - error SENTINEL_FILE_NOT_FOUND at codons[0].sentinels[0].file',
    );
    expect(missing.stdout).not.toContain('OK:');

    // The file's own problems keep their severity: an action that does not fit is an error of the plan.
    const dir = mkdtempSync(join(tmpdir(), 'ribosome-validate-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(
      join(dir, 'guard.yaml'),
      [
        'id: guard',
        'model: m',
        'userPrompt: "{{events}}"',
        'trigger: { type: event, eventTypes: [tool.result] }',
        'actions:',
        '  - when: [{ path: repeating, op: equals, value: true }]',
        '    do: halt',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'plan.yaml'),
      'name: guarded\ncodons:\n  - id: one\n    prompt: hi\n    sentinels: [{ file: guard.yaml }]\n',
    );
    const invalid = await validate(join(dir, 'plan.yaml'), '--json');
    expect(invalid.code).toBe(2);
    const report = JsonReport.parse(JSON.parse(invalid.stdout));
    expect(report.problems.map((p) => [p.severity, p.code, p.file, p.path])).toEqual([
      ['error', 'SENTINEL_FILE_INVALID', join(dir, 'plan.yaml'), 'codons[0].sentinels[0].file'],
      ['error', 'ACTION_WHEN_MISMATCH', join(dir, 'guard.yaml'), 'actions[0].when'],
    ]);
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

  it('a missing file: exit 2; "the file" (its kind is unknown), "the plan file" with --kind plan', async ({
    expect,
  }) => {
    const { code, stdout } = await validate('examples/plans/no-such-plan.yaml');
    expect(code).toBe(2);
    expect(stdout).toContain(
      'examples/plans/no-such-plan.yaml - error FILE_NOT_FOUND: Cannot read the file: not found.',
    );
    const asPlan = await validate('examples/plans/no-such-plan.yaml', '--kind', 'plan');
    expect(asPlan.stdout).toContain('Cannot read the plan file: not found.');
  });

  it('a directory or an empty file of unknown kind: said of "the file"; comments only pass as a config file', async ({
    expect,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'ribosome-validate-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'comments.yaml'), '# port: 7700\n');
    writeFileSync(join(dir, 'empty.yaml'), '');
    const { code, stdout } = await validate(dir, join(dir, 'comments.yaml'), join(dir, 'empty.yaml'));
    expect(code).toBe(2);
    expect(stdout).toContain(`${dir} - error FILE_UNREADABLE: Cannot read the file: is a directory.`);
    expect(stdout).toContain(`${join(dir, 'comments.yaml')} - error EMPTY_FILE: The file is empty.`);
    expect(stdout).toContain(`${join(dir, 'empty.yaml')} - error EMPTY_FILE: The file is empty.`);
    expect(stdout).toContain('a config file of comments only is valid: check it with --kind config.');
    expect(stdout).not.toContain('plan file');
    const asConfig = await validate(join(dir, 'comments.yaml'), '--kind', 'config');
    expect(asConfig).toMatchObject({ code: 0, stdout: 'OK: config file\n' });
  });

  it('a sentinel file is told apart from a plan and checked as one', async ({ expect }) => {
    const { code, stdout } = await validate('examples/sentinels/narrator.yaml');
    expect({ code, stdout }).toEqual({ code: 0, stdout: 'OK: sentinel narrator\n' });
  });

  it('several files of every kind: one OK line each, named', async ({ expect }) => {
    const { code, stdout } = await validate(
      'examples/plans/loop.yaml',
      'examples/sentinels/cost-watcher.yaml',
      'examples/ribosome.config.yaml',
    );
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        'OK: examples/plans/loop.yaml: essay-loop (7 codons)',
        'OK: examples/sentinels/cost-watcher.yaml: sentinel cost-watcher',
        'OK: examples/ribosome.config.yaml: config file',
        '',
      ].join('\n'),
    );
  });

  it('a broken sentinel file: its problems are errors, exit 2; --json says its kind', async ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), 'ribosome-validate-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'watch.yaml');
    writeFileSync(
      file,
      'id: watch\nmodel: claude-haiku-4-5\nuserPrompt: hi\ntrigger: { type: event, eventTypes: [tool.reslt] }\nmaxTokns: 5\n',
    );
    const text = await validate(file);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain(`${file}:5:1 - error UNKNOWN_FIELD at maxTokns: Unknown field "maxTokns".`);
    expect(text.stdout).toContain('hint: Did you mean "maxTokens"?');
    const json = await validate(file, '--json');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ kind: 'sentinel', ok: false });
    // Without the unknown key it loads: the unknown event type is a warning, as in a plan.
    writeFileSync(
      file,
      'id: watch\nmodel: claude-haiku-4-5\nuserPrompt: hi\ntrigger: { type: event, eventTypes: [tool.reslt] }\n',
    );
    const fixed = await validate(file);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toContain(`${file}:4:38 - warning UNKNOWN_EVENT_TYPE at trigger.eventTypes[0]`);
    expect(fixed.stdout).toContain('OK: sentinel watch');
  });

  it('a sentinel file with schema errors: the checks beyond the schema still run on what parsed (trial 17 L1, L2)', async ({
    expect,
  }) => {
    const bad1 = await validate('test/plan/fixtures/sentinel-bad1.yaml', '--json');
    expect(bad1.code).toBe(2);
    const report = JsonReport.parse(JSON.parse(bad1.stdout));
    // The hint lists what a halt accepts, and suggests no field for the field itself.
    expect(report.problems.find((p) => p.code === 'UNKNOWN_FIELD')).toMatchObject({
      message: 'Unknown field "text".',
      hint: 'Remove it. Fields allowed here: when, do, after.',
    });
    expect(report.problems.map((p) => `${p.code} ${p.path} ${p.line}:${p.column}`)).toEqual([
      'INVALID_VALUE actions[0].do 10:9',
      // Action 2 parsed: its `when` is held against the text output.
      'ACTION_WHEN_MISMATCH actions[1].when 11:11',
      // Every problem of action 3's text, not only the first.
      'INVALID_TEMPLATE actions[2].text 15:11',
      'INVALID_TEMPLATE actions[2].text 15:11',
      'INVALID_TEMPLATE actions[2].text 15:11',
      'INVALID_REGEX actions[3].when.regex 16:20',
      'INVALID_VALUE actions[4].max 20:10',
      'UNKNOWN_FIELD actions[5].text 23:5',
      'INVALID_VALUE maxActions 24:13',
      'INVALID_VALUE cooldownMs 25:13',
      'WRONG_TYPE dryRun 26:9',
    ]);
    expect(
      report.problems.filter((p) => p.code === 'INVALID_TEMPLATE').map((p) => p.message.split(': ')[0]),
    ).toEqual([
      "Action 3's text, line 1, column 7",
      "Action 3's text, line 1, column 25",
      "Action 3's text, line 1, column 36",
    ]);

    const bad2 = await validate('test/plan/fixtures/sentinel-bad2.yaml', '--json');
    expect(bad2.code).toBe(2);
    const problems = JsonReport.parse(JSON.parse(bad2.stdout)).problems;
    expect(problems.map((p) => `${p.severity} ${p.code} ${p.path}`)).toEqual([
      'error ACTION_WHEN_MISMATCH actions[0].when',
      'warning UNKNOWN_OUTPUT_FIELD actions[1].when[0].path',
      'error INVALID_TEMPLATE actions[1].text',
      // A placeholder that parsed is checked beside one that did not (trial 17b L3).
      'warning UNKNOWN_OUTPUT_FIELD actions[1].text',
      'error INVALID_VALUE actions[2].when[0].op',
      'error INVALID_TEMPLATE actions[3].text',
    ]);
  });

  it('a config file with problems, and --kind over what the content says', async ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), 'ribosome-validate-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'settings.yaml');
    writeFileSync(file, 'host: 127.0.0.1\nlimits: { maxClients: 0 }\n');
    const found = await validate(file);
    expect(found.code).toBe(2);
    expect(found.stdout).toContain(`${file}:2:23 - error INVALID_VALUE at limits.maxClients`);
    const asPlan = await validate(file, '--kind', 'plan', '--json');
    expect(JSON.parse(asPlan.stdout)).toMatchObject({
      kind: 'plan',
      problems: expect.arrayContaining([expect.objectContaining({ code: 'MISSING_FIELD', path: 'name' })]),
    });
  });

  it("a config file with only a misspelt key is checked as one: one problem, not a plan's three (issue 30 trial)", async ({
    expect,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'ribosome-validate-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'settings.yaml');
    writeFileSync(file, 'proxyDoubleMaxToken: true\n');
    const found = await validate(file, '--json');
    expect(found.code).toBe(2);
    expect(JSON.parse(found.stdout)).toMatchObject({
      kind: 'config',
      problems: [
        {
          code: 'UNKNOWN_FIELD',
          path: 'proxyDoubleMaxToken',
          hint: expect.stringMatching(/^Did you mean "proxyDoubleMaxTokens"\?/),
        },
      ],
    });
  });

  it('a scripted-provider script is told by its tracks or turns and checked as one (trial 18 L9)', async ({
    expect,
    onTestFinished,
  }) => {
    const good = await validate('examples/scripts/demo.yaml', 'examples/scripts/mixed-agents.yaml');
    expect(good.code, good.stdout).toBe(0);
    expect(good.stdout).toMatch(
      /^OK: examples\/scripts\/demo\.yaml: script \(\d+ tracks?, \d+ default turns?\)$/m,
    );
    expect(good.stdout).not.toContain('MISSING_FIELD');
    const dir = mkdtempSync(join(tmpdir(), 'ribosome-validate-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'script.yaml');
    writeFileSync(
      file,
      [
        'tracks:',
        '  - name: cx',
        '    match: { api: openai-responses }',
        '    turns:',
        '      - content: [{ tool_use: { nme: exec_command } }]',
        'turns:',
        '  - content: [{ text: hi }]',
        '    stopReasn: end_turn',
        '  - error: { status: 700 }',
        '  - wait: 3',
        '',
      ].join('\n'),
    );
    const bad = await validate(file);
    expect(bad.code).toBe(2);
    const lines = bad.stdout.split('\n').filter((l) => l.startsWith(`${file}:`));
    expect(lines).toEqual([
      `${file}:5:31 - error MISSING_FIELD at tracks[0].turns[0].content[0].tool_use.name: Missing required field "name".`,
      `${file}:5:33 - error UNKNOWN_FIELD at tracks[0].turns[0].content[0].tool_use.nme: Unknown field "nme".`,
      `${file}:8:5 - error UNKNOWN_FIELD at turns[0].stopReasn: Unknown field "stopReasn".`,
      `${file}:9:22 - error INVALID_VALUE at turns[1].error.status: "status" must be less than or equal to 599, not 700.`,
      `${file}:10:5 - error INVALID_VALUE at turns[2]: a turn needs exactly one of: content, error, stall, usageLimit`,
    ]);
    // --kind script says so of a file nothing else tells; a plan checked as a script is no script.
    const json = await validate(file, '--kind', 'script', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ kind: 'script', ok: false });
    const plan = await validate('examples/plans/minimal.yaml', '--kind', 'script');
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('UNKNOWN_FIELD at codons');
  });

  it('--json with several files: every report and the overall result', async ({ expect }) => {
    const { code, stdout } = await validate(
      'examples/plans/minimal.yaml',
      'examples/plans/invalid/nested-loop.yaml',
      '--json',
    );
    expect(code).toBe(2);
    const report = JSON.parse(stdout);
    expect(report.ok).toBe(false);
    expect(
      report.files.map((f: { file: string; kind: string; ok: boolean }) => [f.file, f.kind, f.ok]),
    ).toEqual([
      ['examples/plans/minimal.yaml', 'plan', true],
      ['examples/plans/invalid/nested-loop.yaml', 'plan', false],
    ]);
  });
});
