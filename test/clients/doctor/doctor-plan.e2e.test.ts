import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DoctorReport } from '../../../src/clients/doctor/check-result.ts';
import {
  commandLine,
  endMarked,
  isAlive,
  processesWithEnv,
} from '../../../src/platform/processes/process-tree.ts';
import { pidsWith, waitForValue } from '../../helpers/processes.ts';
import { killAll, ROOT, runCli, tempDir } from '../../helpers/server-process.ts';

/** `ribosome doctor --plan FILE`: each MCP server of the plan's codons started once, its tools listed. */

const MARK_SERVER = join(ROOT, 'test/fixtures/mcp/mark-server.mjs');
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  killAll();
  for (const c of cleanups.splice(0)) await c();
});

/** Offline (the scripted provider), agent CLIs left out: only the plan's servers can fail. */
async function doctor(dir: string, plan: string, extraArgs: string[] = [], env: NodeJS.ProcessEnv = {}) {
  writeFileSync(join(dir, 'plan.yaml'), plan);
  writeFileSync(join(dir, 'script.yaml'), 'turns: []\n');
  const proc = runCli(
    [
      'doctor',
      '--plan',
      join(dir, 'plan.yaml'),
      '--scripted-provider',
      join(dir, 'script.yaml'),
      '--execution',
      join(dir, 'runs'),
      ...extraArgs,
    ],
    {
      env: {
        RIBOSOME_CLAUDE_BIN: '/nonexistent/claude',
        RIBOSOME_OPENCODE_BIN: '/nonexistent/opencode',
        RIBOSOME_GEMINI_BIN: '/nonexistent/gemini',
        RIBOSOME_CODEX_BIN: '/nonexistent/codex',
        ...env,
      },
    },
  );
  const exit = await proc.exited;
  return { code: exit.code, stdout: proc.stdout(), stderr: proc.stderr() };
}

const mcpRows = (stdout: string) =>
  DoctorReport.parse(JSON.parse(stdout)).checks.filter((c) => c.check.startsWith('mcp '));

describe('ribosome doctor --plan', () => {
  it("lists the mark server's two tools, once for the codons that share it, and leaves no server running", async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    const plan = `name: d
agent: builtin
mcpServers:
  marker:
    command: ${process.execPath}
    args: [${MARK_SERVER}]
codons:
  - id: one
    prompt: go
  - id: two
    prompt: go
`;
    const table = await doctor(t.path, plan);
    expect(table.code, table.stdout + table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      /^mcp marker +ok +stdio .*mark-server\.mjs: 2 tools: leave_mark \(Leaves a mark: appends the text to the mark file\.\); whoami \(Says which/m,
    );
    const json = await doctor(t.path, plan, ['--json']);
    expect(mcpRows(json.stdout)).toEqual([
      expect.objectContaining({
        check: 'mcp marker',
        status: 'ok',
        detail: expect.stringContaining('2 tools'),
      }),
    ]);
    expect(pidsWith(MARK_SERVER)).toEqual([]);
  });

  it('says what is wrong with each broken server, and fails', async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    const plan = `name: d
agent: builtin
mcpServers:
  missing:
    command: no-such-mcp-server-command
  crashing:
    command: ${process.execPath}
    args: [-e, 'console.error("crashing: no API endpoint configured"); process.exit(1)']
  secretive:
    command: ${process.execPath}
    args: [${MARK_SERVER}]
    envFrom: DOCTOR_TEST_UNSET_SECRET
  fine:
    command: ${process.execPath}
    args: [${MARK_SERVER}]
codons:
  - id: one
    prompt: go
`;
    const { code, stdout } = await doctor(t.path, plan, ['--json'], { DOCTOR_TEST_UNSET_SECRET: '' });
    expect(code).toBe(1);
    const rows = mcpRows(stdout);
    expect(rows.map((r) => [r.check, r.status])).toEqual([
      ['mcp missing', 'fail'],
      ['mcp crashing', 'fail'],
      ['mcp secretive', 'fail'],
      ['mcp fine', 'ok'],
    ]);
    expect(rows[0]?.detail).toBe(
      'stdio no-such-mcp-server-command: could not start: no-such-mcp-server-command was not found (not on PATH, nor a file): install it or give its full path',
    );
    expect(rows[1]?.detail).toMatch(
      /could not start: it exited before answering; its stderr ended: crashing: no API endpoint configured$/,
    );
    expect(rows[2]?.detail).toMatch(/^DOCTOR_TEST_UNSET_SECRET is not set in Ribosome's environment/);
    expect(rows.slice(0, 3).every((r) => (r.fix ?? '').length > 0)).toBe(true);
  });

  // A wrapper (sh, as npx is one) forks the server; sh alone ended, its child would keep the pipes
  // open and doctor waiting for it to exit by itself.
  it('a server that hangs at its start behind a wrapper fails at MCP_TIMEOUT, its whole tree ended', async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    const mark = randomUUID();
    cleanups.push(() => endMarked('HANG_MARK', mark, 0));
    const plan = `name: d
agent: builtin
mcpServers:
  child:
    command: sh
    args: [-c, 'echo hello; sleep 300']
    env: { HANG_MARK: ${mark} }
  session:
    command: sh
    args: [-c, 'setsid sleep 300']
    env: { HANG_MARK: ${mark} }
codons:
  - id: one
    prompt: go
`;
    const sleeps = () =>
      processesWithEnv('HANG_MARK', mark).filter((pid) => commandLine(pid) === 'sleep 300');
    const [running, { code, stdout }] = await Promise.all([
      waitForValue('both servers’ sleeps', () => (sleeps().length === 2 ? sleeps() : undefined), 20_000),
      doctor(t.path, plan, ['--json'], { MCP_TIMEOUT: '3000' }),
    ]);
    expect(code).toBe(1);
    expect(mcpRows(stdout).map((r) => [r.check, r.status, r.detail])).toEqual([
      [
        'mcp child',
        'fail',
        'stdio sh -c echo hello; sleep 300: could not start: it did not answer within 3000 ms (MCP_TIMEOUT)',
      ],
      [
        'mcp session',
        'fail',
        'stdio sh -c setsid sleep 300: could not start: it did not answer within 3000 ms (MCP_TIMEOUT)',
      ],
    ]);
    // Doctor ended while the sleeps would still run (300 s, beyond this test's bound): ended with it.
    expect(running.filter(isAlive)).toEqual([]);
    expect(processesWithEnv('HANG_MARK', mark)).toEqual([]);
  });

  it('without --plan, no MCP rows; a plan that does not load is refused with its problems', async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    const bad = await doctor(
      t.path,
      'name: d\nmcpServers:\n  x:\n    command: node\n    cwd: ../out\ncodons:\n  - id: a\n    prompt: go\n',
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/cwd \.\.\/out climbs out of the agent root/);
    const proc = runCli(
      [
        'doctor',
        '--json',
        '--scripted-provider',
        join(t.path, 'script.yaml'),
        '--execution',
        join(t.path, 'runs'),
      ],
      {
        env: { RIBOSOME_CLAUDE_BIN: '/nonexistent/claude' },
      },
    );
    await proc.exited;
    expect(mcpRows(proc.stdout())).toEqual([]);
  });
});
