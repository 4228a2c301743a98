/**
 * examples/scripts/demo.yaml drives the three demo codons with the built-in agent, one process per
 * codon as the engine runs them, against `ribosome mock-provider` started as a real process.
 */
import { readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadScript } from '../../src/llm/mock-provider/script-loader.ts';
import { jsonLines, killAllTracked, type Spawned, spawnTracked } from './helpers/processes.ts';
import { BIN, cleanEnv, REPO } from './helpers/repo.ts';
import { makeTempRoot, type TempRoot } from './helpers/temp-root.ts';

const SCRIPTS = join(REPO, 'examples/scripts');

let temp: TempRoot;
beforeEach(async () => {
  temp = await makeTempRoot();
});
afterEach(async () => {
  killAllTracked();
  await temp.cleanup();
});

/** Starts `ribosome mock-provider` and waits for its `listening` line. */
async function startProviderProcess(script: string): Promise<{ spawned: Spawned; url: string }> {
  const spawned = spawnTracked(BIN, ['mock-provider', '--script', script, '--port', '0'], {
    cwd: temp.dir,
    env: cleanEnv(temp.dir),
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    spawned.child.stdout.on('data', (chunk: string) => {
      seen += chunk;
      const match = /^listening (http:\/\/\S+)$/m.exec(seen);
      if (match?.[1]) resolve(match[1]);
    });
    spawned.finished.then((done) => reject(new Error(`mock-provider exited: ${done.stderr}`)));
  });
  return { spawned, url };
}

describe('example scripts', () => {
  it('are all valid', async () => {
    const files = readdirSync(SCRIPTS).filter((name) => /\.(ya?ml|json)$/.test(name));
    expect(files).toContain('demo.yaml');
    for (const file of files) {
      const loaded = await loadScript(join(SCRIPTS, file));
      expect(loaded.ok ? 'valid' : loaded.error.message).toBe('valid');
    }
  });

  it('demo.yaml runs the three demo codons with the built-in agent', async () => {
    const provider = await startProviderProcess(join(SCRIPTS, 'demo.yaml'));
    const prompts = [
      'Create hello.txt with a greeting.',
      'Edit the greeting in hello.txt, then list the files.',
      'Write a small README.md describing the files.',
    ];
    for (const prompt of prompts) {
      const codon = spawnTracked(BIN, ['agent', '--cwd', temp.root], {
        cwd: temp.dir,
        env: cleanEnv(temp.dir, { ANTHROPIC_BASE_URL: provider.url, ANTHROPIC_API_KEY: 'test' }),
        input: prompt,
      });
      const done = await codon.finished;
      expect(done.code, done.stderr).toBe(0);
      const lines = jsonLines(done.stdout);
      expect(lines.at(-1)).toMatchObject({ type: 'result', is_error: false });
      expect(
        lines
          .filter((line) => line.type === 'user')
          .every((line) => JSON.stringify(line).includes('"is_error":false')),
      ).toBe(true);
    }
    expect(await readFile(join(temp.root, 'hello.txt'), 'utf8')).toBe(
      'Hello from Ribosome, edited by codon 2!\n',
    );
    expect(await readFile(join(temp.root, 'README.md'), 'utf8')).toContain('# Ribosome demo');

    // The provider logs one line per request on stderr and stops cleanly on SIGTERM.
    provider.spawned.child.kill('SIGTERM');
    const stopped = await provider.spawned.finished;
    expect(stopped.code).toBe(0);
    expect(stopped.stderr.split('\n').filter((line) => line.includes('POST /v1/messages'))).toHaveLength(10);
  });

  it('mock-provider refuses an invalid script with a clear message', async () => {
    const bad = join(temp.dir, 'bad.yaml');
    await writeFile(bad, 'turns:\n  - error: { status: nope }\n');
    const spawned = spawnTracked(BIN, ['mock-provider', '--script', bad], {
      cwd: temp.dir,
      env: cleanEnv(temp.dir),
    });
    const done = await spawned.finished;
    expect(done.code).not.toBe(0);
    expect(done.stderr).toContain('turns[0].error.status');
  });
});
