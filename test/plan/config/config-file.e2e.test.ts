import { writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractFiles } from '../../../src/host/contract/schema-files.ts';
import { ConfigFile, configKeys, loadConfigFile } from '../../../src/plan/config/config-file.ts';
import { resolveProxyConfig } from '../../../src/plan/config/proxy-config.ts';
import { resolveServerSettings } from '../../../src/plan/config/server-config.ts';
import type { PlanProblem } from '../../../src/plan/problems.ts';
import { simplePlan } from '../../helpers/plans.ts';
import { runCli, tempDir } from '../../helpers/server-process.ts';
import { tempFiles } from '../helpers.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const EXAMPLE = join(ROOT, 'examples/ribosome.config.yaml');

/** The field of each row of a generated reference page: the backquoted name in its first cell. */
function rowNames(page: string): string[] {
  return page
    .split('\n')
    .flatMap((line) => (line.startsWith('| `') ? [line.slice(3, line.indexOf('`', 3))] : []));
}

async function problemsOf(name: string, text: string): Promise<PlanProblem[]> {
  const dir = await tempFiles({ [name]: text });
  const result = await loadConfigFile(join(dir, name));
  return result.ok ? result.warnings : result.problems;
}

const brief = (p: PlanProblem) => [p.code, p.path, p.line, p.column];

describe('the config file is checked as strictly as a plan', () => {
  it('an unknown key: UNKNOWN_FIELD at its line and column, with a "did you mean"', async () => {
    const problems = await problemsOf('c.yaml', 'port: 7700\nproxyIdleTimeout: 5\nlimits:\n  maxClient: 3\n');
    expect(problems.map(brief)).toEqual([
      ['UNKNOWN_FIELD', 'proxyIdleTimeout', 2, 1],
      ['UNKNOWN_FIELD', 'limits.maxClient', 4, 3],
    ]);
    expect(problems[0]?.hint).toMatch(/^Did you mean "proxyIdleTimeoutMs"\?/);
    expect(problems[1]?.hint).toMatch(/^Did you mean "maxClients"\?/);
  });

  it('a wrong value: its range in the hint, in the JSON file too', async () => {
    const problems = await problemsOf('c.json', '{\n  "port": 70000,\n  "journalSync": "ful"\n}\n');
    expect(problems.map(brief)).toEqual([
      ['INVALID_VALUE', 'port', 2, 11],
      ['INVALID_VALUE', 'journalSync', 3, 18],
    ]);
    expect(problems[0]?.hint).toMatch(/^Use a whole number from 0 to 65535\./);
    expect(problems[1]?.hint).toBe('Did you mean "full"? Use one of: full, normal.');
  });

  it('a trailing comma in a JSON config file is an error at its place', async () => {
    const problems = await problemsOf('c.json', '{\n  "port": 0,\n}\n');
    expect(problems.map(brief)).toEqual([['JSON_SYNTAX', '', 2, 12]]);
  });

  it('a valid file gives its own keys (without $schema); the parts read theirs from it', async () => {
    const dir = await tempFiles({
      'c.yaml': '$schema: ../schema/config.schema.json\nport: 7700\nwithoutProxy: false\n',
    });
    const result = await loadConfigFile(join(dir, 'c.yaml'));
    expect(result).toEqual({ ok: true, value: { port: 7700, withoutProxy: false }, warnings: [] });
    if (!result.ok) return;
    const settings = resolveServerSettings(result.value);
    expect(settings.ok && settings.value.port).toBe(7700);
    const proxy = resolveProxyConfig({ cli: {}, env: {}, file: result.value });
    expect(proxy.ok && proxy.value.enabled).toBe(true);
  });

  it('keys that may not go together: an error at the key, the default counted when the other is unset', async () => {
    const problems = await problemsOf(
      'c.yaml',
      'port: 0\nproxyMaxBodyBytes: 100\nproxyMaxInFlightBytes: 10\n',
    );
    expect(problems.map(brief)).toEqual([['INVALID_VALUE', 'proxyMaxInFlightBytes', 3, 24]]);
    expect(problems[0]?.message).toBe(
      'proxyMaxInFlightBytes (10) must be at least proxyMaxBodyBytes (100), or a body of the allowed size could never be taken.',
    );
    const alone = await problemsOf('c.yaml', 'proxyMaxInFlightBytes: 1024\n');
    expect(alone.map((p) => p.message)).toEqual([
      'proxyMaxInFlightBytes (1024) must be at least proxyMaxBodyBytes (33554432, its default), or a body of the allowed size could never be taken.',
    ]);
    expect(await problemsOf('c.yaml', 'proxyMaxBodyBytes: 100\nproxyMaxInFlightBytes: 100\n')).toEqual([]);
  });

  it('`ribosome validate` and `run --config` agree on keys that may not go together, and both say where', async () => {
    const t = tempDir();
    try {
      writeFileSync(join(t.path, 'plan.yaml'), simplePlan(['one']));
      writeFileSync(join(t.path, 'c.yaml'), 'proxyMaxInFlightBytes: 10\nproxyMaxBodyBytes: 100\n');
      const where = 'c.yaml:1:24 - error INVALID_VALUE at proxyMaxInFlightBytes: proxyMaxInFlightBytes (10)';
      const validate = runCli(['validate', 'c.yaml'], { cwd: t.path });
      expect((await validate.exited).code).toBe(2);
      expect(validate.stdout()).toContain(where);
      const run = runCli(['run', 'plan.yaml', '--headless', '--config', 'c.yaml'], { cwd: t.path });
      expect((await run.exited).code).toBe(2);
      expect(run.stderr()).toContain(where);
    } finally {
      t.remove();
    }
  });

  it('a file of comments only sets nothing; a missing file is a problem', async () => {
    const dir = await tempFiles({ 'c.yaml': '# port: 7700\n' });
    expect(await loadConfigFile(join(dir, 'c.yaml'))).toEqual({ ok: true, value: {}, warnings: [] });
    const missing = await loadConfigFile(join(dir, 'nope.yaml'));
    expect(missing.ok ? [] : missing.problems.map((p) => p.code)).toEqual(['FILE_NOT_FOUND']);
  });

  it('`ribosome run --config` with a problem exits 2, says where, and starts nothing', async () => {
    const t = tempDir();
    try {
      writeFileSync(join(t.path, 'plan.yaml'), simplePlan(['one']));
      writeFileSync(join(t.path, 'ribosome.yaml'), 'port: 0\nautostrat: false\n');
      const proc = runCli(['run', 'plan.yaml', '--headless', '--config', 'ribosome.yaml'], { cwd: t.path });
      expect((await proc.exited).code).toBe(2);
      expect(proc.stdout()).toBe('');
      expect(proc.stderr()).toContain(
        'ribosome.yaml:2:1 - error UNKNOWN_FIELD at autostrat: Unknown field "autostrat".\n  hint: Did you mean "autostart"?',
      );
      expect(await readdir(t.path)).toEqual(expect.not.arrayContaining(['ribosome-runs']));
    } finally {
      t.remove();
    }
  });
});

describe('the config file documented: example, reference page, JSON Schema', () => {
  it('examples/ribosome.config.yaml is valid and sets every key', async () => {
    const result = await loadConfigFile(EXAMPLE);
    expect(result).toMatchObject({ ok: true, warnings: [] });
    if (!result.ok) return;
    const set = (key: string) => {
      const [top, inner] = key.split('.');
      const value = result.value[top!];
      return inner === undefined ? value !== undefined : Object.hasOwn(value as object, inner);
    };
    expect(configKeys().filter((key) => !set(key))).toEqual([]);
  });

  it('docs/reference/config.md lists exactly the keys of the schema, in its order', async () => {
    const keys = configKeys();
    expect(keys).toEqual(expect.arrayContaining(['limits.maxClients', 'budget.maxCostUsd']));
    const page = await readFile(join(ROOT, 'docs/reference/config.md'), 'utf8');
    // Rows of an array's items (`notify[].webhook`) describe values, not keys of the file.
    const rows = rowNames(page).filter((name) => !name.includes('[]'));
    expect(rows).toEqual(['$schema', ...keys]);
  });

  it('schema/config.schema.json is generated from the same schema and refuses unknown keys', async () => {
    const shipped = JSON.parse(await readFile(join(ROOT, 'schema/config.schema.json'), 'utf8'));
    expect(JSON.parse(contractFiles()['config.schema.json']!)).toEqual(shipped);
    expect(shipped.additionalProperties).toBe(false);
    expect(shipped.properties.limits.additionalProperties).toBe(false);
    expect(Object.keys(shipped.properties).sort()).toEqual(Object.keys(ConfigFile.shape).sort());
  });
});
