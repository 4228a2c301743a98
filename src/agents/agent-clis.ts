import type { Agent } from '../plan/primitives.ts';
import { CLAUDE_CODE } from './claude-binary.ts';
import { type AgentCli, cliFound } from './cli-binary.ts';
import { CODEX } from './codex/codex-cli.ts';
import { GEMINI_CLI } from './gemini/gemini-cli.ts';
import { OPENCODE } from './opencode/opencode-cli.ts';

/** Every agent that runs a CLI of its own (all but the built-in one), and that CLI; doctor checks each. */
export const AGENT_CLIS: Readonly<Record<Exclude<Agent, 'builtin'>, AgentCli>> = {
  'claude-code': CLAUDE_CODE,
  codex: CODEX,
  gemini: GEMINI_CLI,
  opencode: OPENCODE,
};

/** A CLI not found where its agent would look: the binary it looked for, named by its variable or not. */
export type MissingCli = { agent: Agent; cli: AgentCli; binary: string; fromVar: boolean };

/** The CLIs of `agents` that are not found (as their adapters would start them), in the given order. */
export function missingClis(agents: readonly Agent[], env: NodeJS.ProcessEnv = process.env): MissingCli[] {
  return agents.flatMap((agent) => {
    if (agent === 'builtin') return [];
    const cli = AGENT_CLIS[agent];
    const found = cliFound(cli, env);
    return found.found ? [] : [{ agent, cli, binary: found.binary, fromVar: Boolean(env[cli.envVar]) }];
  });
}
