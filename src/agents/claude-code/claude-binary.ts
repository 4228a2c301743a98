import { type AgentCli, cliBinary, installHint } from '../cli-binary.ts';

export const CLAUDE_CODE: AgentCli = {
  name: 'Claude Code',
  envVar: 'RIBOSOME_CLAUDE_BIN',
  pkg: '@anthropic-ai/claude-code',
  bin: 'claude',
};

/** What to do when Claude Code is missing; doctor and the claude-code agent both say it. */
export const CLAUDE_CODE_INSTALL = installHint(CLAUDE_CODE);

/**
 * The Claude Code CLI: RIBOSOME_CLAUDE_BIN, else the one of an installed @anthropic-ai/claude-code
 * package (a clone's devDependency, or installed beside the ribosome package: it is an optional peer),
 * else `claude` on PATH.
 */
export function claudeBinary(env: NodeJS.ProcessEnv = process.env): string {
  return cliBinary(CLAUDE_CODE, env);
}
