import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DoctorReport } from '../../src/clients/doctor/check-result.ts';
import { SERVER_VERSION } from '../../src/core/version.ts';
import { boundedRunner, type Ran } from '../helpers/bounded-run.ts';
import { ROOT, tempDir } from '../helpers/server-process.ts';

/**
 * The package as a user gets it: `npm pack` (which builds dist/ at prepack), the tarball installed
 * with production dependencies only into an empty folder (the registry is reached for them), then
 * the CLI and the client run from there on the repository's pinned Node 24 (not the system's), with
 * nothing of the clone on PATH.
 */

const temp = tempDir('ribosome-pack-');
const app = join(temp.path, 'app');
const NODE = join(ROOT, 'node_modules/node/bin/node');

/** A PATH directory holding only `names`, each linked to the first one found on `path`. */
function toolDir(dir: string, names: string[], path: string): string {
  mkdirSync(dir, { recursive: true });
  for (const name of names) {
    const found = path
      .split(delimiter)
      .map((d) => join(d, name))
      .find((p) => existsSync(p));
    if (found) symlinkSync(found, join(dir, name));
  }
  return dir;
}

/** The test's own environment without npm's variables (npm_config_local_prefix would aim npm at the clone). */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^npm_/i.test(key) && key !== 'INIT_CWD' && key !== 'RIBOSOME_CLAUDE_BIN') env[key] = value;
  return env;
}

const nodeDir = join(temp.path, 'node-bin');
const systemPath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((d) => !d.startsWith(join(ROOT, 'node_modules')))
  .join(delimiter);
/** Node 24 first, then the system's PATH without the clone's node_modules (no tsc, claude, vitest). */
const ENV: NodeJS.ProcessEnv = { ...baseEnv(), PATH: `${nodeDir}${delimiter}${systemPath}` };

const runner = boundedRunner();

/** Runs `command` with /bin/sh (found whatever PATH is) in its own process group, killed after `timeoutMs`. */
function sh(command: string, cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv = ENV): Promise<Ran> {
  return runner.run('/bin/sh', ['-c', command], { cwd, env, timeoutMs });
}

type PackEntry = { filename: string; entryCount: number; size: number; files: Array<{ path: string }> };
let packed: PackEntry;
let installed: Ran;
const MANIFEST = readFileSync(join(ROOT, 'package.json'), 'utf8');

beforeAll(async () => {
  mkdirSync(nodeDir);
  symlinkSync(NODE, join(nodeDir, 'node'));
  const pack = await sh(`npm pack --json --pack-destination ${temp.path}`, ROOT, 150_000);
  expect(pack.code, pack.stderr).toBe(0);
  packed = (JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as PackEntry[])[0]!;
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{ "name": "app", "private": true }\n');
  installed = await sh(
    `npm install --omit=dev --no-audit --no-fund ${join(temp.path, packed.filename)}`,
    app,
    90_000,
  );
  expect(installed.code, installed.stderr).toBe(0);
}, 240_000);

afterAll(() => {
  runner.killAll();
  temp.remove();
});

describe('the npm package', () => {
  it('holds the compiled CLI, types, the built web dashboard, schemas, examples and docs; no tests, no sources', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths.filter((p) => /^(test|src|bench)\//.test(p))).toEqual([]);
    expect(paths.filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts'))).toEqual([]);
    for (const p of [
      'bin/ribosome',
      'dist/clients/cli/main.js',
      'dist/core/client/index.js',
      'dist/core/client/index.d.ts',
      'dist/core/protocol/index.d.ts',
      'dist-web/index.html',
      'dist-web/app.js',
      'dist-web/app.css',
      'schema/plan.schema.json',
      'examples/demo/plan.yaml',
      'examples/scripts/demo.yaml',
      'README.md',
      'CONTRIBUTING.md',
    ])
      expect(paths).toContain(p);
    // Every docs page: the shipped README links them relatively.
    const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((p) =>
      p.endsWith('.md'),
    );
    expect(docs).toContain('protocol.md');
    for (const page of docs) expect(paths).toContain(`docs/${page}`);
    // Production dependencies only: neither the pinned Node runtime nor Claude Code (an optional peer).
    const installed = readdirSync(join(app, 'node_modules'));
    expect(installed).toContain('ribosome');
    expect(installed).not.toContain('node');
    expect(installed).not.toContain('@anthropic-ai');
  });

  it('ships no prepare script (npm never runs it for a tarball, yet warned of it); the clone keeps its own', () => {
    const shipped = JSON.parse(readFileSync(join(app, 'node_modules/ribosome/package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(shipped.scripts.prepare).toBeUndefined();
    expect(installed.stderr).not.toMatch(/prepare|install-scripts/);
    // Put back byte for byte once packed: `npm ci` in the clone still builds the dashboard.
    expect(readFileSync(join(ROOT, 'package.json'), 'utf8')).toBe(MANIFEST);
    expect(JSON.parse(MANIFEST).scripts.prepare).toBe('npm run build:web');
  });

  it('in a fresh clone (no npm ci yet), npm pack says in one line to run npm ci first', async () => {
    const fresh = join(temp.path, 'fresh-clone');
    mkdirSync(fresh);
    copyFileSync(join(ROOT, 'package.json'), join(fresh, 'package.json'));
    // The system's PATH only: neither the clone's tsc nor its Node 24.
    const ran = await sh('npm pack', fresh, 60_000, { ...baseEnv(), PATH: systemPath });
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toMatch(/^npm pack: run npm ci first \(.*\)$/m);
    expect(ran.stderr).not.toMatch(/not found/);
    expect(readdirSync(fresh)).toEqual(['package.json']);
  });

  it('`ribosome --version` and `-V` print the package version', async () => {
    const long = await sh('npx ribosome --version', app, 30_000);
    expect(long.code, long.stderr).toBe(0);
    expect(long.stdout.trim()).toBe(SERVER_VERSION);
    const short = await sh('node_modules/.bin/ribosome -V', app, 30_000);
    expect(short.stdout).toBe(long.stdout);
  });

  it('`ribosome validate` checks a plan shipped in the package', async () => {
    const ok = await sh('npx ribosome validate node_modules/ribosome/examples/plans/loop.yaml', app, 30_000);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^OK: /);
    const invalid = readdirSync(join(app, 'node_modules/ribosome/examples/plans/invalid'))[0]!;
    const bad = await sh(
      `npx ribosome validate node_modules/ribosome/examples/plans/invalid/${invalid}`,
      app,
      30_000,
    );
    expect(bad.code).toBe(2);
  });

  it('`ribosome demo --exit-when-done` runs the shipped demo offline and exits 0', async () => {
    const demo = await sh(
      `npx ribosome demo --exit-when-done --execution ${join(temp.path, 'demo')}`,
      app,
      90_000,
    );
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toMatch(/all 3 codons of plan "demo" are done/);
  });

  it('a script importing ribosome/client and ribosome/protocol drives a headless run to its end', async () => {
    copyFileSync(join(import.meta.dirname, 'fixtures/drive-run.mjs'), join(app, 'drive-run.mjs'));
    const ran = await sh(`node drive-run.mjs ${join(temp.path, 'client-run')}`, app, 90_000);
    expect(ran.code, ran.stderr).toBe(0);
    const seen = JSON.parse(ran.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(seen).toMatchObject({
      codons: ['write-hello', 'edit-hello', 'write-readme'],
      completed: [
        { codonId: 'write-hello', success: true },
        { codonId: 'edit-hello', success: true },
        { codonId: 'write-readme', success: true },
      ],
      idle: 'all-codons-completed',
      invalidEvents: 0,
      invalidFrames: 0,
      commandSchema: true,
      exit: { code: 0, signal: null },
    });
    expect(seen.types).toEqual(expect.arrayContaining(['codon.started', 'assistant.action', 'file.updated']));
  });

  it('the package types are read by a TypeScript consumer (nodenext)', async () => {
    writeFileSync(
      join(app, 'consumer.ts'),
      [
        "import { RibosomeClient } from 'ribosome/client';",
        "import { type EventData, EVENT_TYPES } from 'ribosome/protocol';",
        'export const types: readonly string[] = EVENT_TYPES;',
        "export async function ready(url: string): Promise<EventData<'server.ready'>> {",
        "  return (await RibosomeClient.connect(url, { mode: 'readonly' })).serverInfo;",
        '}',
        '// @ts-expect-error a wrong mode is an error: the types are real, not `any`',
        "void RibosomeClient.connect('ws://x', { mode: 'everything' });",
        '',
      ].join('\n'),
    );
    const options = { module: 'nodenext', strict: true, noEmit: true, skipLibCheck: true, types: [] };
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: options, files: ['consumer.ts'] }),
    );
    const tsc = await sh(`node ${join(ROOT, 'node_modules/typescript/bin/tsc')} -p .`, app, 60_000);
    expect(tsc.code, tsc.stdout).toBe(0);
  });

  it('without Claude Code, doctor only warns and says how to install it', async () => {
    const tools = toolDir(join(temp.path, 'doctor-path'), ['dirname', 'readlink'], systemPath);
    symlinkSync(NODE, join(tools, 'node'));
    const args = `--json --provider-base-url http://127.0.0.1:1 --execution ${join(temp.path, 'doctor')}`;
    const ran = await sh(`node_modules/.bin/ribosome doctor ${args}`, app, 30_000, { ...ENV, PATH: tools });
    const report = DoctorReport.parse(JSON.parse(ran.stdout));
    const claude = report.checks.find((c) => c.check === 'claude code');
    expect(claude?.status).toBe('warn');
    expect(claude?.fix).toMatch(/npm install @anthropic-ai\/claude-code/);
    expect(report.checks.find((c) => c.check === 'node')?.status).toBe('ok');
  });

  it('on a Node older than 22.18 the CLI says which Node to install and exits 1, no stack trace', async () => {
    const old = join(temp.path, 'old-node');
    mkdirSync(old);
    writeFileSync(join(old, 'node'), '#!/bin/sh\necho v20.11.1\n', { mode: 0o755 });
    const ran = await sh('node_modules/.bin/ribosome --version', app, 30_000, {
      ...ENV,
      PATH: `${old}${delimiter}${systemPath}`,
    });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toMatch(/needs Node\.js 22\.18 or newer; this is Node v20\.11\.1/);
    expect(ran.stderr).toMatch(/Install Node 24/);
    expect(ran.stderr).toContain('`npx -y -p node@24 ribosome ...`');
    expect(ran.stderr).not.toMatch(/\n\s+at |Error/);
  });
});
