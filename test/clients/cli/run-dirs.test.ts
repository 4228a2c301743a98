import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type InspectedDir, inspectDir, runDirsProblem } from '../../../src/clients/cli/run-dirs.ts';
import { tempDir } from '../../helpers/server-process.ts';

const dir = (path: string, real = path, kind: InspectedDir['kind'] = 'directory'): InspectedDir => ({
  path,
  real,
  kind,
});
const dirs = (
  over: Partial<Record<'executionDir' | 'agentRoot' | 'dataDir' | 'outputDir', InspectedDir>>,
) => ({
  executionDir: dir('/p/runs/x'),
  agentRoot: dir('/p/runs/x/agentRoot'),
  dataDir: dir('/p/runs/x/data', '/p/runs/x/data', 'missing'),
  outputDir: dir('/p/runs/x/output', '/p/runs/x/output', 'missing'),
  ...over,
});

describe('runDirsProblem', () => {
  it('the defaults, and directories beside the execution, are fine', () => {
    expect(runDirsProblem(dirs({}))).toBeUndefined();
    expect(runDirsProblem(dirs({ dataDir: dir('/data'), outputDir: dir('/out') }))).toBeUndefined();
  });

  it('a data directory holding the execution directory (--data . with ./ribosome-runs) is refused', () => {
    expect(runDirsProblem(dirs({ dataDir: dir('/p') }))).toMatch(
      /^--data \/p contains the execution directory \/p\/runs\/x: the data directory is read-only for the agent/,
    );
    expect(runDirsProblem(dirs({ dataDir: dir('/p/runs/x') }))).toMatch(/contains the execution directory/);
    // Through a link: what it leads to counts, and the message says so.
    expect(runDirsProblem(dirs({ dataDir: dir('/link', '/p/runs') }))).toMatch(
      /^--data \/link \(it leads to \/p\/runs\) contains the execution directory/,
    );
  });

  it('a data or output directory inside the agent root, by its real path, is refused', () => {
    expect(runDirsProblem(dirs({ dataDir: dir('/p/runs/x/agentRoot/d') }))).toMatch(
      /^--data \/p\/runs\/x\/agentRoot\/d is inside the agent root/,
    );
    expect(runDirsProblem(dirs({ outputDir: dir('/out', '/p/runs/x/agentRoot/out') }))).toBe(
      '--output /out (it leads to /p/runs/x/agentRoot/out) is inside the agent root /p/runs/x/agentRoot: choose a directory outside it',
    );
  });

  it('a data or output directory naming a file is refused', () => {
    expect(runDirsProblem(dirs({ dataDir: dir('/f', '/f', 'other') }))).toBe(
      '--data /f is a file, not a directory: name a directory (it is created when missing)',
    );
    expect(runDirsProblem(dirs({ outputDir: dir('/f', '/f', 'other') }))).toMatch(/^--output \/f is a file/);
  });
});

describe('inspectDir', () => {
  const temps: Array<{ remove(): void }> = [];
  afterEach(() => {
    for (const t of temps.splice(0)) t.remove();
  });

  it('follows links, dangling ones too, and says what stands there', async () => {
    const t = tempDir();
    temps.push(t);
    const root = join(t.path, 'root');
    mkdirSync(join(root, 'out'), { recursive: true });
    writeFileSync(join(t.path, 'file'), 'x');
    symlinkSync(join(root, 'out'), join(t.path, 'link'));
    symlinkSync(join(root, 'later'), join(t.path, 'dangling'));
    expect(await inspectDir(join(t.path, 'link'))).toMatchObject({
      real: join(root, 'out'),
      kind: 'directory',
    });
    expect(await inspectDir(join(t.path, 'dangling', 'x'))).toMatchObject({
      real: join(root, 'later', 'x'),
      kind: 'missing',
    });
    expect((await inspectDir(join(t.path, 'file'))).kind).toBe('other');
  });
});
