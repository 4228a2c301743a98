import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandFound } from '../../src/agents/cli-binary.ts';
import { boundedRunner } from '../helpers/bounded-run.ts';
import { ROOT, tempDir } from '../helpers/server-process.ts';

/**
 * The Containerfile (docs/batches.md#the-image) built as CI builds it: buildah, chroot isolation, the
 * vfs storage driver, FROM a base made of Debian packages and this checkout's Node 24 (.ci/base-image:
 * no image registry is reachable here). Then `ribosome` inside the image, with `buildah run`, prints
 * the package's version and runs the demo to its end. buildah keeps everything in storage of the
 * test's own, removed afterwards. Missing tools skip it with a line saying so; with CI set they fail it.
 */

const TOOLS = ['buildah', 'mmdebstrap'];
const missing = TOOLS.filter((tool) => !commandFound(tool));
const why =
  missing.length > 0
    ? `${missing.join(' and ')} not installed (apt-get install ${missing.join(' ')})`
    : process.getuid?.() !== 0
      ? 'buildah builds here as root only (no rootless setup)'
      : undefined;
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Minutes each step may take on two busy cores: measured at about 1 (base), 2 (build) and 0.2 (each run). */
const MINUTE = 60_000;

const runner = boundedRunner();

if (why && process.env.CI) {
  describe('the Ribosome image', () => {
    it('has buildah to build it with (CI installs it: .ci/run)', () => {
      throw new Error(`the image test cannot run: ${why}`);
    });
  });
} else {
  if (why) console.log(`skipping the Ribosome image test: ${why}`);
  describe.skipIf(why !== undefined)('the Ribosome image (Containerfile, built with buildah)', () => {
    const temp = tempDir('ribosome-image-');
    const storage = join(temp.path, 'storage.conf');
    // Its own image store: nothing of the machine's is touched, and removing the folder removes it all.
    writeFileSync(
      storage,
      `[storage]\ndriver = "vfs"\ngraphroot = "${temp.path}/graph"\nrunroot = "${temp.path}/run"\n`,
    );
    const env: NodeJS.ProcessEnv = { ...cleanEnv(), CONTAINERS_STORAGE_CONF: storage };
    const base = 'localhost/ribosome-test-base:bookworm';
    const image = 'localhost/ribosome-test:latest';
    let container = '';

    // At the lowest CPU and disk priority: the image's build copies whole layers (vfs) and compiles,
    // and the other test files running beside it on two cores must not be starved by it.
    const run = (command: string, args: string[], timeoutMs: number) =>
      runner.run('nice', ['-n', '19', 'ionice', '-c', '3', command, ...args], { cwd: ROOT, env, timeoutMs });
    const inImage = (args: string[], timeoutMs: number) =>
      run('buildah', ['run', '--isolation', 'chroot', container, '--', ...args], timeoutMs);

    beforeAll(async () => {
      const startedAt = Date.now();
      const made = await run(join(ROOT, '.ci/base-image'), [base], 6 * MINUTE);
      expect(made.code, made.stderr).toBe(0);
      const madeAt = Date.now();
      const built = await run(
        'buildah',
        [
          'bud',
          '--isolation',
          'chroot',
          // The final stage installs its Debian packages while the build stage compiles.
          '--jobs',
          '2',
          '--build-arg',
          `BASE=${base}`,
          '-f',
          'Containerfile',
          '-t',
          image,
          '.',
        ],
        12 * MINUTE,
      );
      expect(built.code, `${built.stdout.slice(-4000)}\n${built.stderr}`).toBe(0);
      const seconds = (from: number, to: number) => Math.round((to - from) / 1000);
      console.log(
        `the Ribosome image: base made in ${seconds(startedAt, madeAt)} s, built in ${seconds(madeAt, Date.now())} s`,
      );
      const from = await run('buildah', ['from', image], MINUTE);
      expect(from.code, from.stderr).toBe(0);
      container = from.stdout.trim();
    }, 20 * MINUTE);

    afterAll(async () => {
      runner.killAll();
      // The working container and every image live in the test's own storage: removing it removes them.
      await run('buildah', ['rm', '--all'], MINUTE);
      temp.remove();
    }, 3 * MINUTE);

    it('runs ribosome as its command, and `ribosome --version` is the version of the package it was built from', async () => {
      const inspected = await run('buildah', ['inspect', '--type', 'image', image], MINUTE);
      expect(inspected.code, inspected.stderr).toBe(0);
      const { Entrypoint } = (JSON.parse(inspected.stdout) as { OCIv1: { config: { Entrypoint: string[] } } })
        .OCIv1.config;
      expect(Entrypoint.at(-1)).toBe('ribosome');
      const version = await inImage(['ribosome', '--version'], MINUTE);
      expect(version.code, version.stderr).toBe(0);
      expect(version.stdout.trim()).toBe(VERSION);
    });

    it('has git and the sandbox tools on PATH', async () => {
      const tools = await inImage(
        ['sh', '-c', 'for t in git bwrap socat curl; do command -v $t; done'],
        MINUTE,
      );
      expect(tools.code, tools.stderr).toBe(0);
      expect(tools.stdout.trim().split('\n')).toHaveLength(4);
    });

    it('runs the demo offline to its end', async () => {
      const demo = await inImage(['ribosome', 'demo', '--execution', '/tmp/demo'], 3 * MINUTE);
      expect(demo.code, demo.stderr).toBe(0);
      expect(demo.stdout).toMatch(/^= all \d+ codons of plan "demo" are done$/m);
    });
  });
}

/** The test's environment without npm's variables (npm_config_prefix and the like would aim npm elsewhere). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
  return env;
}
