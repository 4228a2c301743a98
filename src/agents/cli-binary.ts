import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** An agent CLI Ribosome starts: where to find it and what to tell a user who lacks it. */
export type AgentCli = {
  /** How doctor and errors name it: `Claude Code`. */
  name: string;
  /** The variable that names its binary, over everything else: RIBOSOME_CLAUDE_BIN. */
  envVar: string;
  /** The npm package that ships it (a devDependency of a clone, or installed beside Ribosome). */
  pkg: string;
  /** Its command, in the package's `bin` and on PATH. */
  bin: string;
};

/** What to do when `cli` is missing; doctor and its adapter both say it. */
export function installHint(cli: AgentCli): string {
  return `install it beside Ribosome (npm install ${cli.pkg}) or globally (npm install -g ${cli.pkg}), put \`${cli.bin}\` on PATH, or set ${cli.envVar}; plans with \`agent: builtin\` need none`;
}

/** The CLI's binary: its variable, else the installed package's bin, else its command on PATH. */
export function cliBinary(cli: AgentCli, env: NodeJS.ProcessEnv = process.env): string {
  return env[cli.envVar] || installedBin(cli) || cli.bin;
}

/**
 * Whether `command` can be started: a path (absolute, or with a slash) to an executable program, or a
 * command found as one in a directory of PATH, as spawning it would find it. A program: a regular file
 * with an execute bit that is a script (`#!`) or a binary; an executable text file without `#!` would
 * be run by sh line by line (retrial 18 L6: `RIBOSOME_CODEX_BIN=/etc/hostname`), so it is not one, as
 * doctor, which runs it, finds.
 */
export function commandFound(command: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (command.includes('/')) return isExecutableFile(command);
  return (env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && isExecutableFile(join(dir, command)));
}

/** Whether the CLI's binary (as `cliBinary` names it) is there to start: its agent would find it. */
export function cliFound(
  cli: AgentCli,
  env: NodeJS.ProcessEnv = process.env,
): { found: boolean; binary: string } {
  const binary = cliBinary(cli, env);
  return { found: commandFound(binary, env), binary };
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return process.platform === 'win32' || isProgram(path);
  } catch {
    return false;
  }
}

/** How a program begins: `#!`, ELF, Mach-O (32, 64, either byte order) and universal Mach-O. */
const PROGRAM_MAGIC = ['2321', '7f454c46', 'feedface', 'feedfacf', 'cefaedfe', 'cffaedfe', 'cafebabe'];

function isProgram(path: string): boolean {
  const head = Buffer.alloc(4);
  const fd = openSync(path, 'r');
  try {
    const hex = head.subarray(0, readSync(fd, head, 0, 4, 0)).toString('hex');
    return PROGRAM_MAGIC.some((magic) => hex.startsWith(magic));
  } finally {
    closeSync(fd);
  }
}

function installedBin(cli: AgentCli): string | undefined {
  let manifest: string;
  try {
    manifest = fileURLToPath(import.meta.resolve(`${cli.pkg}/package.json`));
  } catch {
    return undefined;
  }
  try {
    const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: string | Record<string, string> };
    const relative = typeof bin === 'string' ? bin : bin?.[cli.bin];
    const path = relative ? join(dirname(manifest), relative) : undefined;
    return path && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Says how to get the CLI when its start failed for want of the binary (ENOENT): the variable's path
 * when it named one, else that it is not installed.
 */
export function missingCliHint(cli: AgentCli, failure: string, env: NodeJS.ProcessEnv = process.env): string {
  if (!failure.includes('ENOENT')) return failure;
  const named = env[cli.envVar];
  return named
    ? `${failure}; ${cli.envVar}=${named}: not found; ${installHint(cli)}`
    : `${failure}; ${cli.name} is not installed: ${installHint(cli)}`;
}
