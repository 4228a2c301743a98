import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveOutputFiles, writeOutput } from '../../../src/engine/sentinels/output-files.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'ribosome-sentinel-files-'));
  dirs.push(d);
  return d;
}

describe('sentinel output files', () => {
  it('appends JSON lines to the log and replaces the last file', async () => {
    const d = dir();
    const paths = resolveOutputFiles(d, { log: 'logs/narrator.jsonl', last: 'narrator.txt' });
    if (!paths.ok) throw new Error(paths.message);
    expect(await writeOutput(paths, { time: 't1', triggerNumber: 1, content: 'first' })).toEqual([]);
    expect(await writeOutput(paths, { time: 't2', triggerNumber: 2, content: 'second' })).toEqual([]);
    const lines = readFileSync(join(d, 'logs/narrator.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { time: 't1', triggerNumber: 1, content: 'first' },
      { time: 't2', triggerNumber: 2, content: 'second' },
    ]);
    expect(readFileSync(join(d, 'narrator.txt'), 'utf8')).toBe('second');
    expect(readdirSync(d).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('writes structured output as indented JSON', async () => {
    const d = dir();
    const paths = resolveOutputFiles(d, { last: 'loop.json' });
    if (!paths.ok) throw new Error(paths.message);
    await writeOutput(paths, { time: 't', triggerNumber: 1, content: { repeating: false } });
    expect(JSON.parse(readFileSync(join(d, 'loop.json'), 'utf8'))).toEqual({ repeating: false });
  });

  it('reports a write that fails and still writes the other file', async () => {
    const d = dir();
    writeFileSync(join(d, 'blocker'), 'a file where a directory should be');
    const paths = resolveOutputFiles(d, { log: 'blocker/log.jsonl', last: 'last.txt' });
    if (!paths.ok) throw new Error(paths.message);
    const problems = await writeOutput(paths, { time: 't', triggerNumber: 1, content: 'x' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/cannot write .*blocker\/log.jsonl/);
    expect(readFileSync(join(d, 'last.txt'), 'utf8')).toBe('x');
  });

  it('refuses paths outside the directory', () => {
    expect(resolveOutputFiles('/x/sentinels', { log: '../escape.jsonl' })).toMatchObject({ ok: false });
    expect(resolveOutputFiles('/x/sentinels', { last: '/etc/passwd' })).toMatchObject({ ok: false });
    expect(resolveOutputFiles('/x/sentinels', undefined)).toEqual({ ok: true });
  });
});
