import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLAUDE_CODE } from '../../agents/claude-code/claude-binary.ts';
import { type AgentCli, cliBinary, commandFound, installHint } from '../../agents/cli-binary.ts';
import type { CheckResult } from './check-result.ts';

type Ran = { ok: true; output: string } | { ok: false; error: string; timedOut?: true };

/** How long `--version` may take by default: a loaded machine starts a CLI slowly (Gemini CLI in 14 s). */
export const VERSION_TIMEOUT_MS = 10_000;

/**
 * Runs `command --version`, ended after `timeoutMs`; ENOENT and a timeout come back as an error text.
 * The timeout is our own: a CLI that exits 0 on the SIGTERM (Gemini CLI's parent process, handing it to
 * its child) would otherwise read as one that printed nothing.
 */
export function versionOf(
  command: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = VERSION_TIMEOUT_MS,
): Promise<Ran> {
  return new Promise((resolve) => {
    let timedOut = false;
    const child = execFile(command, ['--version'], { env }, (error, stdout) => {
      clearTimeout(timer);
      if (timedOut)
        resolve({ ok: false, error: `\`--version\` timed out after ${seconds(timeoutMs)}`, timedOut });
      else if (error) {
        const code = (error as NodeJS.ErrnoException).code;
        resolve({ ok: false, error: code === 'ENOENT' ? 'not found' : error.message.split('\n')[0]! });
      } else resolve({ ok: true, output: stdout.trim().split('\n')[0] ?? '' });
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill();
    }, timeoutMs);
  });
}

/** `10 s`, `0.2 s`. Pure. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** git is required: checkpoints are commits in a shadow repository. */
export async function checkGit(env: NodeJS.ProcessEnv, timeoutMs = VERSION_TIMEOUT_MS): Promise<CheckResult> {
  const ran = await versionOf('git', env, timeoutMs);
  if (ran.ok) return { check: 'git', status: 'ok', detail: ran.output };
  return {
    check: 'git',
    status: 'fail',
    detail: `git ${ran.error} (PATH: ${env.PATH ?? ''})`,
    fix: 'install git and put it on PATH (checkpoints and rollback are git commits)',
  };
}

/** Variables naming an agent CLI's own home, which would lead it back to the user's. */
const AGENT_HOME_VARS = ['CODEX_HOME', 'CLAUDE_CONFIG_DIR', 'GEMINI_CLI_HOME', 'OPENCODE_CONFIG_DIR'];

/**
 * `env` with a home of its own under `dir`: HOME, the XDG directories, no agent home variable. An agent
 * CLI started to tell its version writes there, not in the user's home (Gemini CLI leaves a
 * `~/.gemini/projects.json.<uuid>.tmp` at every start). Pure.
 */
export function throwawayHome(env: NodeJS.ProcessEnv, dir: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {
    ...env,
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, '.config'),
    XDG_DATA_HOME: join(dir, '.local', 'share'),
    XDG_STATE_HOME: join(dir, '.local', 'state'),
    XDG_CACHE_HOME: join(dir, '.cache'),
  };
  for (const name of AGENT_HOME_VARS) delete out[name];
  return out;
}

/**
 * An agent CLI is found (its variable, an installed package, PATH: as its agent finds it) and its
 * version, asked with a throwaway home (removed after) so that nothing is left in the user's. Each is
 * optional (a plan whose codons name other agents runs without it), so its absence warns, saying how
 * to get it, as does a `--version` that prints nothing; one that takes longer than `timeoutMs` warns
 * that it did (a loaded machine), without advice to reinstall it. Named after it in lower case:
 * `claude code`, `opencode`.
 */
export async function checkAgentCli(
  cli: AgentCli,
  env: NodeJS.ProcessEnv,
  binary: string = cliBinary(cli, env),
  timeoutMs = VERSION_TIMEOUT_MS,
): Promise<CheckResult> {
  const check = cli.name.toLowerCase();
  // There but not a program `ribosome run` would start (an executable text file without `#!`: sh
  // would run it line by line): said as such, as run refuses it (retrial 18 L6).
  if (binary.includes('/') && existsSync(binary) && !commandFound(binary, env)) {
    return {
      check,
      status: 'warn',
      detail: `${binary}: not an executable program (a script starting with #!, or a binary)`,
      fix: installHint(cli),
    };
  }
  const home = mkdtempSync(join(tmpdir(), 'ribosome-doctor-home-'));
  let ran: Ran;
  try {
    ran = await versionOf(binary, throwawayHome(env, home), timeoutMs);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  if (ran.ok && ran.output.trim() !== '') return { check, status: 'ok', detail: `${ran.output} (${binary})` };
  if (ran.ok) {
    return {
      check,
      status: 'warn',
      detail: `${binary}: \`--version\` printed nothing`,
      fix: `run \`${binary} --version\` to see what is wrong; if it still prints nothing, reinstall it: ${installHint(cli)}`,
    };
  }
  if (ran.timedOut) {
    return {
      check,
      status: 'warn',
      detail: `${binary}: ${ran.error} (a loaded machine starts it slowly)`,
      fix: `run \`${binary} --version\` to see how long it takes; \`ribosome doctor --version-timeout <seconds>\` waits longer`,
    };
  }
  return { check, status: 'warn', detail: `${binary}: ${ran.error}`, fix: installHint(cli) };
}

/** Claude Code is optional: the built-in agent (`agent: builtin`) runs without it, so its absence warns. */
export function checkClaudeCode(binary: string, env: NodeJS.ProcessEnv): Promise<CheckResult> {
  return checkAgentCli(CLAUDE_CODE, env, binary);
}
