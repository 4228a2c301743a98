import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ArchiveManifest, archiveFiles, restoreArchive } from '../../src/engine/archive.ts';
import { runRigSetup } from '../../src/engine/rig-setup.ts';
import { pidsWith, waitFor } from '../helpers/processes.ts';
import { tempDir } from '../helpers/server-process.ts';

const temps: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.remove();
});
function layout() {
  const t = tempDir();
  temps.push(t);
  const root = join(t.path, 'agentRoot');
  const plan = join(t.path, 'plan');
  mkdirSync(root, { recursive: true });
  mkdirSync(join(plan, 'assets'), { recursive: true });
  writeFileSync(join(plan, 'assets/style.md'), 'be nice');
  writeFileSync(join(plan, 'notes.txt'), 'notes');
  return { dir: t.path, root, plan };
}

describe('rig setup', () => {
  it('copies files and directories, runs commands with output, and reports created directories', async () => {
    const { dir, root, plan } = layout();
    mkdirSync(join(root, 'existing'));
    const output: string[] = [];
    const result = await runRigSetup({
      agentRoot: root,
      executionDir: dir,
      onOutput: (m) => output.push(m),
      steps: [
        { type: 'copy', from: join(plan, 'notes.txt'), to: '.', allowFailure: false },
        { type: 'copy', from: join(plan, 'assets'), to: 'docs/assets', allowFailure: false },
        {
          type: 'run',
          command: 'mkdir -p build/out && echo built > build/out/x && echo hello-from-rig',
          cwd: { base: 'agentRoot', path: '.' },
          allowFailure: false,
        },
      ],
    });
    expect(result).toEqual({ ok: true, createdDirs: ['build', 'docs'] });
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('notes');
    expect(readFileSync(join(root, 'docs/assets/style.md'), 'utf8')).toBe('be nice');
    expect(existsSync(join(root, 'build/out/x'))).toBe(true);
    expect(output.some((l) => l.includes('hello-from-rig'))).toBe(true);
    expect(output.filter((l) => l.startsWith('rig setup step'))).toHaveLength(3);
  });

  it('stops at a failing step unless it allows failure', async () => {
    const { dir, root } = layout();
    const allowed = await runRigSetup({
      agentRoot: root,
      executionDir: dir,
      onOutput: () => {},
      steps: [
        { type: 'run', command: 'exit 3', cwd: { base: 'agentRoot', path: '.' }, allowFailure: true },
        { type: 'run', command: 'touch ran', cwd: { base: 'agentRoot', path: '.' }, allowFailure: false },
      ],
    });
    expect(allowed.ok).toBe(true);
    expect(existsSync(join(root, 'ran'))).toBe(true);
    const failed = await runRigSetup({
      agentRoot: root,
      executionDir: dir,
      onOutput: () => {},
      steps: [
        { type: 'copy', from: join(dir, 'missing'), to: 'x', allowFailure: false },
        { type: 'run', command: 'touch never', cwd: { base: 'agentRoot', path: '.' }, allowFailure: false },
      ],
    });
    expect(failed).toMatchObject({ ok: false, step: 0, message: expect.stringMatching(/step 1 .*failed/) });
    expect(existsSync(join(root, 'never'))).toBe(false);
    const slow = await runRigSetup({
      agentRoot: root,
      executionDir: dir,
      onOutput: () => {},
      steps: [
        {
          type: 'run',
          command: 'sleep 30',
          cwd: { base: 'agentRoot', path: '.' },
          allowFailure: false,
          timeoutMs: 200,
        },
      ],
    });
    expect(slow).toMatchObject({ ok: false, message: expect.stringMatching(/timed out/) });
  });

  it('ends with its shell: a process the step left running, even detached with setsid, is ended', async () => {
    const { dir, root } = layout();
    const marker = 30_000 + Math.floor(Math.random() * 5000);
    const output: string[] = [];
    const step = (command: string) => ({
      type: 'run' as const,
      command,
      cwd: { base: 'agentRoot' as const, path: '.' },
      allowFailure: false,
    });
    const result = await runRigSetup({
      agentRoot: root,
      executionDir: dir,
      onOutput: (line) => output.push(line),
      // The detached process is up before the shell exits, as a server started by a step would be.
      steps: [step(`(setsid sleep ${marker} &); sleep 0.3; echo started`)],
    });
    expect(result.ok).toBe(true);
    expect(output).toContain('  started');
    expect(output).toContain('  ended 1 process(es) the step left running');
    expect(pidsWith(`sleep ${marker}`)).toEqual([]);

    // Stopped half way: the detached process goes with the shell.
    const abort = new AbortController();
    const stopped = runRigSetup({
      agentRoot: root,
      executionDir: dir,
      onOutput: () => {},
      signal: abort.signal,
      steps: [step(`(setsid sleep ${marker + 1} &); sleep ${marker + 2}`)],
    });
    await waitFor(() => pidsWith(`sleep ${marker + 2}`).length > 0, 'the step to run');
    abort.abort();
    expect(await stopped).toMatchObject({ ok: false, aborted: true });
    await waitFor(() => pidsWith(`sleep ${marker + 1}`).length === 0, 'the detached process to end', 5_000);
    expect(pidsWith(`sleep ${marker + 2}`)).toEqual([]);
  });
});

describe('archive', () => {
  it('moves matching files to rigArchive/<codon>, records them, and copies them back', async () => {
    const { dir, root } = layout();
    mkdirSync(join(root, 'logs/deep'), { recursive: true });
    writeFileSync(join(root, 'logs/a.log'), 'a');
    writeFileSync(join(root, 'logs/deep/b.log'), 'b');
    writeFileSync(join(root, 'keep.txt'), 'k');
    const result = await archiveFiles({
      agentRoot: root,
      rigArchive: join(dir, 'rigArchive'),
      codonId: 'c1',
      globs: ['**/*.log'],
    });
    expect(result).toEqual({
      archived: ['logs/a.log', 'logs/deep/b.log'],
      failed: [],
      refused: [],
      archiveDir: join(dir, 'rigArchive/c1'),
    });
    expect(existsSync(join(root, 'logs/a.log'))).toBe(false);
    expect(readFileSync(join(dir, 'rigArchive/c1/logs/deep/b.log'), 'utf8')).toBe('b');
    expect(existsSync(join(root, 'keep.txt'))).toBe(true);
    const manifest = new ArchiveManifest(join(dir, '.ribosome/archive-manifest.json'));
    const entry = {
      runId: 'r',
      codonId: 'c1',
      archiveDir: result.archiveDir,
      files: result.archived,
      at: new Date().toISOString(),
    };
    await manifest.add(entry);
    expect(await manifest.read()).toEqual([entry]);
    const restored = await restoreArchive(entry, root);
    expect(restored).toEqual({ restored: ['logs/a.log', 'logs/deep/b.log'], failed: [] });
    expect(readFileSync(join(root, 'logs/deep/b.log'), 'utf8')).toBe('b');
    // Copied back: the archive keeps its copies.
    expect(readFileSync(join(dir, 'rigArchive/c1/logs/a.log'), 'utf8')).toBe('a');
    // A file the agent root has again is left as it is.
    writeFileSync(join(root, 'logs/a.log'), 'newer');
    expect(await restoreArchive(entry, root)).toEqual({ restored: [], failed: [] });
    expect(readFileSync(join(root, 'logs/a.log'), 'utf8')).toBe('newer');
  });

  it('never archives outside the agent root', async () => {
    const { dir, root } = layout();
    writeFileSync(join(dir, 'outside.log'), 'x');
    const result = await archiveFiles({
      agentRoot: root,
      rigArchive: join(dir, 'rigArchive'),
      codonId: 'c',
      globs: ['../*.log'],
    });
    expect(result.archived).toEqual([]);
    expect(existsSync(join(dir, 'outside.log'))).toBe(true);
  });
});
