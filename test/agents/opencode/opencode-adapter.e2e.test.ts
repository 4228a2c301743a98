/**
 * The opencode adapter with a stand-in binary (RIBOSOME_OPENCODE_BIN) that records how it was started
 * and prints captured opencode output: what a run is given (arguments, stdin, environment, files) in
 * both configurations, and a message sent meanwhile becoming a follow-up turn by resume.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentStart } from '../../../src/agents/agent-adapter.ts';
import { OpencodeAdapter } from '../../../src/agents/opencode/opencode-adapter.ts';
import type { StreamLine } from '../../../src/agents/stream-line.ts';
import { tempDir } from '../../helpers/server-process.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures/opencode');

let dir: string;
let remove: () => void;
const saved = { ...process.env };
beforeEach(() => {
  ({ path: dir, remove } = tempDir('ribosome-opencode-'));
  // Each start records its arguments, stdin and environment in run-<n>/, then prints `out-<n>.jsonl`.
  const bin = join(dir, 'opencode');
  writeFileSync(
    bin,
    `#!/bin/bash
n=$(ls -d "${dir}"/run-* 2>/dev/null | wc -l)
out="${dir}/run-$n"; mkdir "$out"
printf '%s\\n' "$@" > "$out/args"; cat > "$out/stdin"; pwd > "$out/cwd"
# As it was started with (the shell resets PWD in its own copy).
tr '\\0' '\\n' < /proc/$$/environ > "$out/env"
cat "${dir}/out-$n.jsonl"
`,
  );
  chmodSync(bin, 0o755);
  process.env.RIBOSOME_OPENCODE_BIN = bin;
  delete process.env.ANTHROPIC_API_KEY;
  process.env.PWD = '/somewhere/else';
});
afterEach(() => {
  process.env = { ...saved };
  remove();
});

function start(adapter: OpencodeAdapter, extra: Partial<AgentStart> = {}) {
  const cwd = join(dir, 'agentRoot');
  mkdirSync(cwd, { recursive: true });
  return adapter.start({
    prompt: 'Do "one".\nThen stop.',
    model: 'claude-sonnet-4-5',
    cwd,
    env: {},
    providerBaseUrl: 'http://127.0.0.1:4000',
    stateDir: join(dir, 'state'),
    mark: 'mark-1',
    ...extra,
  });
}

async function drain(lines: AsyncIterable<StreamLine>): Promise<StreamLine[]> {
  const out: StreamLine[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

const envOf = (n: number) =>
  Object.fromEntries(
    readFileSync(join(dir, `run-${n}`, 'env'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

describe('opencode adapter', () => {
  it('isolated: prompt on stdin, its own home and config file, PWD the agent root, a placeholder key on loopback', async () => {
    writeFileSync(join(dir, 'out-0.jsonl'), readFileSync(join(FIXTURES, 'resume.jsonl')));
    mkdirSync(join(dir, 'data'));
    mkdirSync(join(dir, 'agentRoot'));
    symlinkSync(join(dir, 'data'), join(dir, 'agentRoot', 'ribosome-data'));
    const run = start(new OpencodeAdapter(), {
      resumeSessionId: 'ses_prev',
      appendSystemPrompt: 'Be brief.',
      dataDir: join(dir, 'agentRoot', 'ribosome-data'),
    });
    const lines = await drain(run.lines);
    expect(lines.at(-1)).toMatchObject({ type: 'result', is_error: false });
    expect(await run.exited).toEqual({ type: 'success' });

    const run0 = join(dir, 'run-0');
    expect(readFileSync(join(run0, 'stdin'), 'utf8')).toBe('Do "one".\nThen stop.');
    expect(readFileSync(join(run0, 'args'), 'utf8').split('\n').slice(0, -1)).toEqual([
      'run',
      '--format',
      'json',
      '--model',
      'anthropic/claude-sonnet-4-5',
      '--auto',
      '--thinking',
      '--title',
      '',
      '--session',
      'ses_prev',
      '--fork',
    ]);
    expect(readFileSync(join(run0, 'cwd'), 'utf8').trim()).toBe(join(dir, 'agentRoot'));
    const home = join(dir, 'state', 'opencode-home');
    const env = envOf(0);
    expect(env).toMatchObject({
      PWD: join(dir, 'agentRoot'),
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      XDG_DATA_HOME: join(home, 'data'),
      OPENCODE_CONFIG: join(home, 'opencode.json'),
      OPENCODE_DISABLE_PROJECT_CONFIG: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      ANTHROPIC_API_KEY: 'ribosome-offline',
      RIBOSOME_AGENT_RUN: 'mark-1',
    });
    expect(env).not.toHaveProperty('OPENCODE_CONFIG_CONTENT');
    const config = JSON.parse(readFileSync(join(home, 'opencode.json'), 'utf8'));
    expect(config).toMatchObject({
      provider: {
        anthropic: { options: { baseURL: 'http://127.0.0.1:4000/v1', apiKey: '{env:ANTHROPIC_API_KEY}' } },
      },
      instructions: [join(home, 'append-system-prompt.md')],
      // The link and where it leads.
      permission: { edit: expect.objectContaining({ 'ribosome-data/*': 'deny', 'data/*': 'deny' }) },
    });
    expect(readFileSync(join(home, 'append-system-prompt.md'), 'utf8')).toBe('Be brief.');
    // The plugin that prints a line as each tool starts, a local file.
    expect(config.plugin).toEqual([`file://${join(home, 'ribosome-tool-start.js')}`]);
    expect(readFileSync(join(home, 'ribosome-tool-start.js'), 'utf8')).toContain("'tool.execute.before'");
    // Its own config directory looks installed: opencode fetches no plugin package into it.
    expect(existsSync(join(home, 'config', 'opencode', 'node_modules'))).toBe(true);
    expect(readFileSync(join(home, 'config', 'opencode', 'package-lock.json'), 'utf8')).toContain(
      '@opencode-ai/plugin',
    );
  });

  it("user: the user's HOME and login, Ribosome's config as OPENCODE_CONFIG_CONTENT; the server's key passed as it is", async () => {
    writeFileSync(join(dir, 'out-0.jsonl'), readFileSync(join(FIXTURES, 'resume.jsonl')));
    process.env.HOME = '/home/someone';
    process.env.ANTHROPIC_API_KEY = 'sk-user';
    const run = start(new OpencodeAdapter({ config: 'user' }));
    await drain(run.lines);
    const env = envOf(0);
    expect(env).toMatchObject({ HOME: '/home/someone', ANTHROPIC_API_KEY: 'sk-user' });
    expect(env).not.toHaveProperty('OPENCODE_CONFIG');
    expect(env).not.toHaveProperty('OPENCODE_DISABLE_PROJECT_CONFIG');
    const config = JSON.parse(env.OPENCODE_CONFIG_CONTENT ?? '{}');
    expect(config).toMatchObject({
      provider: { anthropic: { options: { baseURL: 'http://127.0.0.1:4000/v1' } } },
      model: 'anthropic/claude-sonnet-4-5',
    });
    // No plugin (retrial 18 L3): with one, opencode installs @opencode-ai/plugin into the user's
    // ~/.config/opencode (64 MB from npm) before it runs.
    expect(config).not.toHaveProperty('plugin');
    expect(existsSync(join(dir, 'state', 'opencode-home', 'ribosome-tool-start.js'))).toBe(false);
  });

  it('a message sent while it works runs a follow-up turn in its session, without forking it', async () => {
    writeFileSync(join(dir, 'out-0.jsonl'), readFileSync(join(FIXTURES, 'tools.jsonl')));
    writeFileSync(join(dir, 'out-1.jsonl'), readFileSync(join(FIXTURES, 'resume.jsonl')));
    const run = start(new OpencodeAdapter());
    expect(run.send('FOLLOW-UP: and say so.')).toBe(true);
    const results = (await drain(run.lines)).filter((l) => l.type === 'result');
    expect(results.map((r) => r.type === 'result' && r.result)).toEqual([
      'Wrote hello.txt.',
      'Heard you: FOLLOW-UP done.',
    ]);
    expect(readFileSync(join(dir, 'run-1', 'stdin'), 'utf8')).toBe('FOLLOW-UP: and say so.');
    expect(
      readFileSync(join(dir, 'run-1', 'args'), 'utf8')
        .split('\n')
        .slice(-3, -1),
    ).toEqual(['--session', 'ses_de63c35b2ffee80ZR1RJAgF94p']);
  });

  it('a missing binary: the codon cannot start, saying how to install opencode', async () => {
    process.env.RIBOSOME_OPENCODE_BIN = join(dir, 'none');
    const run = start(new OpencodeAdapter());
    expect(await drain(run.lines)).toEqual([]);
    expect(await run.exited).toEqual({ type: 'error', code: 127 });
    expect(run.startFailure).toMatch(
      /ENOENT.*RIBOSOME_OPENCODE_BIN=\S*none: not found; .*npm install -g opencode-ai/,
    );
  });
});
