import { execFile } from 'node:child_process';
import { CLAUDE_CODE } from '../agents/claude-binary.ts';
import { type AgentCli, cliBinary, installHint } from '../agents/cli-binary.ts';
import type { CheckResult } from './check-result.ts';

type Ran = { ok: true; output: string } | { ok: false; error: string };

/** Runs `command --version` (bounded); ENOENT and a timeout come back as an error text. */
export function versionOf(command: string, env: NodeJS.ProcessEnv, timeoutMs = 10_000): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, ['--version'], { env, timeout: timeoutMs }, (error, stdout) => {
      if (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const why =
          code === 'ENOENT' ? 'not found' : error.killed ? 'timed out' : error.message.split('\n')[0]!;
        resolve({ ok: false, error: why });
      } else resolve({ ok: true, output: stdout.trim().split('\n')[0] ?? '' });
    });
  });
}

/** git is required: checkpoints are commits in a shadow repository. */
export async function checkGit(env: NodeJS.ProcessEnv): Promise<CheckResult> {
  const ran = await versionOf('git', env);
  if (ran.ok) return { check: 'git', status: 'ok', detail: ran.output };
  return {
    check: 'git',
    status: 'fail',
    detail: `git ${ran.error} (PATH: ${env.PATH ?? ''})`,
    fix: 'install git and put it on PATH (checkpoints and rollback are git commits)',
  };
}

/**
 * An agent CLI is found (its variable, an installed package, PATH: as its agent finds it) and its
 * version. Each is optional (a plan whose codons name other agents runs without it), so its absence
 * warns, saying how to get it. Named after it in lower case: `claude code`, `opencode`.
 */
export async function checkAgentCli(
  cli: AgentCli,
  env: NodeJS.ProcessEnv,
  binary: string = cliBinary(cli, env),
): Promise<CheckResult> {
  const check = cli.name.toLowerCase();
  const ran = await versionOf(binary, env);
  if (ran.ok) return { check, status: 'ok', detail: `${ran.output} (${binary})` };
  return { check, status: 'warn', detail: `${binary}: ${ran.error}`, fix: installHint(cli) };
}

/** Claude Code is optional: the built-in agent (`agent: builtin`) runs without it, so its absence warns. */
export function checkClaudeCode(binary: string, env: NodeJS.ProcessEnv): Promise<CheckResult> {
  return checkAgentCli(CLAUDE_CODE, env, binary);
}
