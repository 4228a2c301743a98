/**
 * Rig setup `run` commands see the codon's `env`; `copy` keeps symlinks as links, their text as
 * written (relative ones relative), and never follows one, wherever it leads.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runRigSetup } from '../../src/engine/rig-setup.ts';
import { tempDir } from '../helpers/server-process.ts';

const temps: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.remove();
});

/** A plan folder with a package whose `.bin` links relatively into it, and an `outside/` directory. */
function layout() {
  const t = tempDir();
  temps.push(t);
  const dir = realpathSync(t.path);
  const root = join(dir, 'agentRoot');
  const plan = join(dir, 'plan');
  const outside = join(dir, 'outside');
  const modules = join(plan, 'node_modules');
  for (const d of [root, join(modules, 'tool'), join(modules, '.bin'), outside])
    mkdirSync(d, { recursive: true });
  writeFileSync(join(modules, 'tool/cli.sh'), '#!/bin/sh\necho tool-ran\n');
  chmodSync(join(modules, 'tool/cli.sh'), 0o755);
  symlinkSync('../tool/cli.sh', join(modules, '.bin/tool'));
  symlinkSync('tool', join(modules, 'tool-alias'));
  // An absolute link, to a file of this test's own (a test writing through it never reaches the system).
  writeFileSync(join(outside, 'absolute-target'), 'target');
  symlinkSync(join(outside, 'absolute-target'), join(modules, 'absolute'));
  symlinkSync('../../outside/secret', join(modules, 'leads-out'));
  symlinkSync('missing', join(modules, 'dangling'));
  writeFileSync(join(outside, 'secret'), 'outside');
  return { dir, root, plan, outside, modules };
}

const copy = (from: string, to: string) => ({ type: 'copy' as const, from, to, allowFailure: false });
const run = (command: string) => ({
  type: 'run' as const,
  command,
  cwd: { base: 'agentRoot' as const, path: '.' },
  allowFailure: false,
});

describe('rig setup env', () => {
  it('gives run commands the codon env over the server environment', async () => {
    const { dir, root } = layout();
    const result = await runRigSetup({
      agentRoot: root,
      executionDir: dir,
      onOutput: () => {},
      env: { RIG_GREETING: 'hello from the plan', PATH: `/nonexistent:${process.env.PATH}` },
      steps: [run('echo "$RIG_GREETING" > env.txt && echo "$PATH" | cut -d: -f1 >> env.txt')],
    });
    expect(result.ok).toBe(true);
    expect(readFileSync(join(root, 'env.txt'), 'utf8')).toBe('hello from the plan\n/nonexistent\n');
  });
});

describe('rig setup copy of symlinks', () => {
  it('keeps links as links with their text as written; a copied .bin runs', async () => {
    const { dir, root, modules, outside } = layout();
    const output: string[] = [];
    const result = await runRigSetup({
      agentRoot: root,
      executionDir: dir,
      onOutput: (m) => output.push(m),
      steps: [copy(modules, 'node_modules'), run('node_modules/.bin/tool')],
    });
    expect(result).toMatchObject({ ok: true, createdDirs: ['node_modules'] });
    const copied = join(root, 'node_modules');
    expect(readlinkSync(join(copied, '.bin/tool'))).toBe('../tool/cli.sh');
    expect(readlinkSync(join(copied, 'tool-alias'))).toBe('tool');
    expect(readlinkSync(join(copied, 'absolute'))).toBe(join(outside, 'absolute-target'));
    expect(readlinkSync(join(copied, 'dangling'))).toBe('missing');
    // A link out is copied as the link itself: nothing is read or written through it.
    expect(readlinkSync(join(copied, 'leads-out'))).toBe('../../outside/secret');
    expect(readFileSync(join(outside, 'secret'), 'utf8')).toBe('outside');
    // The relative link leads into the copy, not back to the plan folder.
    expect(realpathSync(join(copied, '.bin/tool'))).toBe(join(copied, 'tool/cli.sh'));
    expect(output).toContain('  tool-ran');
  });

  it('copies again over its own links (a retry), replacing a file or link there but never a directory', async () => {
    const { dir, root, modules, outside } = layout();
    const steps = [copy(modules, 'node_modules')];
    expect((await runRigSetup({ agentRoot: root, executionDir: dir, onOutput: () => {}, steps })).ok).toBe(
      true,
    );
    const again = await runRigSetup({ agentRoot: root, executionDir: dir, onOutput: () => {}, steps });
    expect(again.ok).toBe(true);
    expect(readlinkSync(join(root, 'node_modules/dangling'))).toBe('missing');
    expect(readlinkSync(join(root, 'node_modules/.bin/tool'))).toBe('../tool/cli.sh');

    // What the agent left where a link goes: a file is replaced, a directory is not. (The link is
    // removed first: writing through it would write its target.)
    rmSync(join(root, 'node_modules/absolute'));
    writeFileSync(join(root, 'node_modules/absolute'), 'agent wrote this');
    const overFile = await runRigSetup({ agentRoot: root, executionDir: dir, onOutput: () => {}, steps });
    expect(overFile.ok).toBe(true);
    expect(lstatSync(join(root, 'node_modules/absolute')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(outside, 'absolute-target'), 'utf8')).toBe('target');
    mkdirSync(join(root, 'node_modules/leads-out-dir'));
    symlinkSync('../../outside', join(modules, 'leads-out-dir'));
    const overDir = await runRigSetup({ agentRoot: root, executionDir: dir, onOutput: () => {}, steps });
    expect(overDir).toMatchObject({
      ok: false,
      message: expect.stringContaining('cannot replace the directory'),
    });
    expect(lstatSync(join(root, 'node_modules/leads-out-dir')).isDirectory()).toBe(true);
    expect(existsSync(join(outside, 'leads-out-dir'))).toBe(false);
  });

  it('copies a single link as the link: into a directory under its own name, or to a new name', async () => {
    const { dir, root, modules } = layout();
    mkdirSync(join(root, 'bin'));
    const result = await runRigSetup({
      agentRoot: root,
      executionDir: dir,
      onOutput: () => {},
      steps: [copy(join(modules, '.bin/tool'), 'bin'), copy(join(modules, 'tool-alias'), 'alias')],
    });
    expect(result.ok).toBe(true);
    expect(readlinkSync(join(root, 'bin/tool'))).toBe('../tool/cli.sh');
    expect(readlinkSync(join(root, 'alias'))).toBe('tool');
  });
});
