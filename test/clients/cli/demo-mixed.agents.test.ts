/**
 * `ribosome demo --mixed` through the real binary: the mixed-agents plan (one codon per agent) runs
 * offline to its end, each codon by the agent the plan names, each leaving its work and a checkpoint;
 * a codon rolled back to its start runs again in the same server (every agent's track loops); a
 * missing agent CLI is named with its install command before anything starts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { AGENT_CLIS } from '../../../src/agents/registry/agent-clis.ts';
import { MIXED_DEMO_AGENTS } from '../../../src/clients/cli/demo.ts';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import { describeWithClis } from '../../helpers/agent-clis.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { cliToEnd, journalRows, ROOT, startServer, tempDir } from '../../helpers/server-process.ts';

const { temps, clients } = e2eResources();

function temp(): string {
  const t = tempDir();
  temps.push(t);
  return t.path;
}

/** `ribosome ARGS` to its end (killed after 60_000 ms). */
const cli = (args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000) =>
  cliToEnd(args, env, timeoutMs);

/** The codons of examples/demo/mixed-agents.yaml: id, the agent that runs it, the tools it calls. */
const CODONS = [
  { id: 'start', name: 'Start the project', agent: 'builtin', tools: ['Write', 'Write', 'Bash'] },
  { id: 'farewell', name: 'Add a farewell', agent: 'claude-code', tools: ['Read', 'Edit', 'Bash'] },
  { id: 'test', name: 'Add a test', agent: 'codex', tools: ['command_execution', 'command_execution'] },
  { id: 'document', name: 'Document it', agent: 'gemini', tools: ['write_file', 'run_shell_command'] },
  { id: 'wrap-up', name: 'Wrap up', agent: 'opencode', tools: ['bash', 'write', 'bash'] },
] as const;

/** RELAY.md's lines after each codon: every agent adds its own. */
const RELAY = [
  '- builtin: wrote greet.sh and this file',
  '- claude-code: made greet.sh say goodbye',
  '- codex: wrote test.sh, which passes',
  '- gemini: wrote README.md; test.sh still passes',
  '- opencode: wrote CHANGELOG.md',
];

/** The completed checkpoints of a run's branch, oldest first: the codon each ends and its commit. */
function completedCheckpoints(exec: string, runId: string): Array<{ codonId: string; sha: string }> {
  const out = execFileSync(
    'git',
    [
      '--git-dir',
      join(exec, '.ribosome/checkpoints.git'),
      'log',
      '--reverse',
      '--format=%H %(trailers:key=Ribosome-Checkpoint-Type,valueonly,separator=) %(trailers:key=Ribosome-Codon-Id,valueonly,separator=)',
      `run/${runId}`,
    ],
    { encoding: 'utf8' },
  );
  return out
    .trim()
    .split('\n')
    .map((line) => line.split(' '))
    .filter(([, type]) => type === 'completed')
    .map(([sha, , codonId]) => ({ sha: sha!, codonId: codonId! }));
}

function showAt(exec: string, sha: string, path: string): string {
  return execFileSync(
    'git',
    ['--git-dir', join(exec, '.ribosome/checkpoints.git'), 'show', `${sha}:${path}`],
    {
      encoding: 'utf8',
    },
  );
}

describeWithClis(
  'ribosome demo --mixed: one codon per agent (e2e)',
  Object.values(AGENT_CLIS).map((c) => cliBinary(c)),
  () => {
    it('runs each codon with its agent on one project: every agent leaves its work and a checkpoint', async () => {
      expect(MIXED_DEMO_AGENTS).toEqual(CODONS.map((c) => c.agent));
      const exec = join(temp(), 'mixed');
      // opencode and Gemini CLI take seconds to start; on a loaded machine tens.
      const ran = await cli(['demo', '--mixed', '--execution', exec], {}, 420_000);
      expect(ran.code, ran.stderr).toBe(0);

      // The console view names the agent of each codon.
      const lines = ran.stdout.split('\n');
      expect(lines.filter((l) => l.startsWith('> '))).toEqual(
        CODONS.map((c) => `> ${c.id}: ${c.name} (${c.agent})`),
      );
      expect(lines).toContain('= all 5 codons of plan "mixed-agents" are done');

      // The journal: each codon started with its agent and completed, in order; the tools each
      // called are its agent's own (Claude Code's names for the built-in agent and Claude Code).
      const events = journalRows(exec);
      const started = events.filter((e) => e.type === 'codon.started').map((e) => e.data);
      expect(started.map((d) => [d.codonId, d.agent])).toEqual(CODONS.map((c) => [c.id, c.agent]));
      const completed = events.filter((e) => e.type === 'codon.completed').map((e) => e.data);
      expect(completed.map((d) => [d.codonId, d.success])).toEqual(CODONS.map((c) => [c.id, true]));
      for (const codon of CODONS) {
        const results = events.filter((e) => e.type === 'tool.result' && e.data.codonId === codon.id);
        expect(
          results.map((e) => [e.data.toolName, e.data.isError]),
          codon.id,
        ).toEqual(codon.tools.map((tool) => [tool, false]));
      }
      // Each CLI ran with its home inside the execution.
      for (const home of ['claude-home', 'codex-home', 'gemini-home', 'opencode-home'])
        expect(existsSync(join(exec, '.ribosome/agents', home)), home).toBe(true);

      // The tree every agent touched.
      const root = join(exec, 'agentRoot');
      const file = (path: string) => readFileSync(join(root, path), 'utf8');
      const sh = (...args: string[]) => execFileSync('sh', args, { cwd: root, encoding: 'utf8' });
      expect(sh('greet.sh')).toBe('Hello, world!\nGoodbye, world.\n');
      expect(file('test.sh')).toContain('actual=$(sh greet.sh Ribosome)');
      expect(file('README.md')).toContain('`greet.sh [NAME]` says hello and goodbye');
      expect(file('CHANGELOG.md')).toContain('- test.sh (codex)');
      expect(sh('test.sh')).toBe('test.sh: ok\n');
      expect(file('RELAY.md').trimEnd().split('\n').slice(-5)).toEqual(RELAY);

      // One completed checkpoint per codon, each holding the relay up to its agent's line.
      const runId = String(events.at(-1)?.runId);
      const checkpoints = completedCheckpoints(exec, runId);
      expect(checkpoints.map((c) => c.codonId)).toEqual(CODONS.map((c) => c.id));
      checkpoints.forEach(({ sha }, i) => {
        const relay = showAt(exec, sha, 'RELAY.md').trimEnd().split('\n');
        expect(
          relay.filter((l) => l.startsWith('- ')),
          CODONS[i]!.id,
        ).toEqual(RELAY.slice(0, i + 1));
      });

      // ribosome runs reads the same.
      const runs = await cli(['runs', '--execution', exec, '--json']);
      expect(runs.code, runs.stderr).toBe(0);
      expect(JSON.parse(runs.stdout)).toEqual([
        expect.objectContaining({ id: runId, status: 'completed', done: 5, total: 5, failed: [] }),
      ]);
    }, 480_000);

    it('a codon rolled back to its start runs again in the same server: its agent answered anew', async () => {
      const exec = join(temp(), 'redo');
      // The first three codons (built-in, Claude Code, Codex) one by one, then Codex's again.
      const server = await startServer(
        join(ROOT, 'examples/demo/mixed-agents.yaml'),
        exec,
        ['--scripted-provider', join(ROOT, 'examples/scripts/mixed-agents.yaml'), '--no-autostart'],
        60_000,
      );
      const client = await RibosomeClient.connect(server.url, { mode: 'readandwrite' });
      clients.push(client);
      const WAIT = 120_000;
      const completed = (codonId: string) =>
        client.next('codon.completed', (e) => e.data.codonId === codonId, WAIT);
      for (const codon of CODONS.slice(0, 3)) {
        const done = completed(codon.id);
        client.send('codon.next');
        expect((await done).data, codon.id).toMatchObject({ codonId: codon.id, success: true });
      }
      const root = join(exec, 'agentRoot');
      const relay = () => readFileSync(join(root, 'RELAY.md'), 'utf8').trimEnd().split('\n').slice(-3);
      expect(relay()).toEqual(RELAY.slice(0, 3));

      await client.request(
        'rollback.toCodon',
        { codonId: 'test', checkpointType: 'start' },
        'rollback.completed',
        { timeoutMs: WAIT },
      );
      expect(existsSync(join(root, 'test.sh'))).toBe(false);
      const redone = completed('test');
      client.send('codon.next');
      expect((await redone).data).toMatchObject({ codonId: 'test', success: true });
      // Codex's track played again from its first turn: test.sh back, and one codex line in the relay.
      expect(relay()).toEqual(RELAY.slice(0, 3));
      expect(execFileSync('sh', ['test.sh'], { cwd: root, encoding: 'utf8' })).toBe('test.sh: ok\n');
    }, 300_000);
  },
);

describe('ribosome demo --mixed without an agent CLI', () => {
  it('exits 2 naming each missing CLI and its install command; nothing starts', async () => {
    const exec = join(temp(), 'mixed');
    const ran = await cli(['demo', '--mixed', '--execution', exec], {
      RIBOSOME_CODEX_BIN: '/nonexistent/codex',
      // A bare command is looked for on PATH.
      RIBOSOME_GEMINI_BIN: 'no-such-gemini',
      // The others found (an executable: only looked for, never run), whatever this machine has.
      RIBOSOME_CLAUDE_BIN: process.execPath,
      RIBOSOME_OPENCODE_BIN: process.execPath,
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('ribosome demo --mixed: 2 agent CLIs are missing');
    expect(ran.stderr).toContain(
      'Codex CLI (agent codex): RIBOSOME_CODEX_BIN=/nonexistent/codex: not found; install it beside Ribosome (npm install @openai/codex) or globally (npm install -g @openai/codex)',
    );
    expect(ran.stderr).toContain(
      'Gemini CLI (agent gemini): RIBOSOME_GEMINI_BIN=no-such-gemini: not found; install it beside Ribosome (npm install @google/gemini-cli) or globally (npm install -g @google/gemini-cli)',
    );
    // No server: no listening line, no execution directory.
    expect(ran.stdout).toBe('');
    expect(existsSync(exec)).toBe(false);
  });
});
