import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/server-process.ts';

/** bin/ribosome, the launcher: which entry it runs where, and the Node it accepts. */

const temp = tempDir('ribosome-bin-');
afterAll(() => temp.remove());
const NODE = join(ROOT, 'node_modules/node/bin/node');
const nodeDir = join(temp.path, 'node-bin');
mkdirSync(nodeDir);
symlinkSync(NODE, join(nodeDir, 'node'));

/** A copy of the launcher at `root`/bin/ribosome with the entries named, each printing which it is. */
function layout(root: string, entries: Array<'src' | 'dist'>): string {
  const bin = join(root, 'bin/ribosome');
  mkdirSync(dirname(bin), { recursive: true });
  copyFileSync(join(ROOT, 'bin/ribosome'), bin);
  for (const entry of entries) {
    const file = join(root, entry === 'src' ? 'src/clients/cli/main.ts' : 'dist/clients/cli/main.js');
    mkdirSync(dirname(file), { recursive: true });
    // The .ts entry has a type annotation: it runs only where Node strips types.
    const declare = entry === 'src' ? `const which: string = 'src';` : `const which = 'dist';`;
    writeFileSync(file, `${declare}\nconsole.log(which, process.argv.slice(2).join(' '));\n`);
  }
  return bin;
}

function run(bin: string, path = `${nodeDir}${delimiter}${process.env.PATH}`) {
  const ran = spawnSync(bin, ['a', 'b c'], { env: { ...process.env, PATH: path }, encoding: 'utf8' });
  return { code: ran.status, stdout: ran.stdout, stderr: ran.stderr };
}

describe('bin/ribosome', () => {
  it('a clone runs the .ts sources even when dist/ is built; an installed package runs dist/', () => {
    // Nothing else on stderr: the line that hides the JavaScript part from sh runs nothing.
    expect(run(layout(join(temp.path, 'clone'), ['src', 'dist']))).toEqual({
      code: 0,
      stdout: 'src a b c\n',
      stderr: '',
    });
    const installed = layout(join(temp.path, 'app/node_modules/ribosome'), ['src', 'dist']);
    expect(run(installed)).toMatchObject({ code: 0, stdout: 'dist a b c\n' });
    // Through the link npm makes in node_modules/.bin.
    mkdirSync(join(temp.path, 'app/node_modules/.bin'));
    symlinkSync('../ribosome/bin/ribosome', join(temp.path, 'app/node_modules/.bin/ribosome'));
    expect(run(join(temp.path, 'app/node_modules/.bin/ribosome'))).toMatchObject({ stdout: 'dist a b c\n' });
    expect(run(layout(join(temp.path, 'packed'), ['dist']))).toMatchObject({ stdout: 'dist a b c\n' });
  });

  it('an unbuilt copy says so instead of a stack trace', () => {
    const ran = run(layout(join(temp.path, 'unbuilt'), []));
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(
      /dist\/clients\/cli\/main\.js is missing; this copy was not built \(npm run build\)/,
    );
  });

  it('refuses a Node older than engines.node, or none, with what to install (exit 1)', () => {
    const bin = layout(join(temp.path, 'old'), ['dist']);
    const old = join(temp.path, 'old-node');
    mkdirSync(old);
    writeFileSync(join(old, 'node'), '#!/bin/sh\necho v22.17.1\n', { mode: 0o755 });
    const tooOld = run(bin, `${old}${delimiter}${process.env.PATH}`);
    expect(tooOld).toMatchObject({ code: 1, stdout: '' });
    expect(tooOld.stderr).toMatch(
      /needs Node\.js 22\.18 or newer; this is Node v22\.17\.1 \(node\)\.\nInstall Node 24/,
    );
    // A route to Node 24 that needs no install: npm runs ribosome on the `node` package's binary.
    expect(tooOld.stderr).toContain('`npx -y -p node@24 ribosome ...`');
    rmSync(join(old, 'node'));
    // Only what the shell itself needs on PATH: no node at all.
    symlinkSync(
      spawnSync('sh', ['-c', 'command -v dirname'], { encoding: 'utf8' }).stdout.trim(),
      join(old, 'dirname'),
    );
    const none = run(bin, old);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no working `node` was found on PATH/);
  });

  it("its minimum is package.json's engines.node, in its shell part and its JavaScript part", () => {
    const text = readFileSync(join(ROOT, 'bin/ribosome'), 'utf8');
    const major = /^need_major=(\d+)$/m.exec(text)?.[1];
    const minor = /^need_minor=(\d+)$/m.exec(text)?.[1];
    const engines = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
    ).engines.node;
    expect(engines).toBe(`>=${major}.${minor}`);
    expect(/major < (\d+) \|\| \(major === (\d+) && minor < (\d+)\)/.exec(text)?.slice(1)).toEqual([
      major,
      major,
      minor,
    ]);
  });

  it('`node bin/ribosome` (the launcher given to Node) runs the CLI as the shell does', () => {
    const bin = layout(join(temp.path, 'as-js'), ['src', 'dist']);
    const ran = spawnSync(NODE, [bin, 'a', 'b c'], { encoding: 'utf8' });
    expect({ code: ran.status, stdout: ran.stdout }).toEqual({ code: 0, stdout: 'src a b c\n' });
  });

  // The JavaScript part's refusal needs a real Node older than 22.18: the system's (PATH without
  // the clone's node_modules), where it is one.
  const systemPath = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((d) => !d.startsWith(join(ROOT, 'node_modules')))
    .join(delimiter);
  const shellNode = spawnSync('sh', ['-c', 'command -v node'], {
    encoding: 'utf8',
    env: { ...process.env, PATH: systemPath },
  }).stdout.trim();
  const shellVersion = shellNode
    ? spawnSync(shellNode, ['--version'], { encoding: 'utf8' }).stdout.trim()
    : '';
  const [oldMajor = 99, oldMinor = 0] = shellVersion.slice(1).split('.').map(Number);
  it.skipIf(!(oldMajor < 22 || (oldMajor === 22 && oldMinor < 18)))(
    '`node bin/ribosome` on an older Node says which Node to use, no stack trace (exit 1)',
    () => {
      const bin = layout(join(temp.path, 'as-js-old'), ['dist']);
      const ran = spawnSync(shellNode, [bin, '--version'], { encoding: 'utf8' });
      expect(ran.status).toBe(1);
      expect(ran.stdout).toBe('');
      expect(ran.stderr).toContain(`needs Node.js 22.18 or newer; this is Node ${shellVersion}`);
      expect(ran.stderr).toContain('`npx -y -p node@24 ribosome ...`');
      expect(ran.stderr).not.toMatch(/\n\s+at |Error/);
    },
  );
});
