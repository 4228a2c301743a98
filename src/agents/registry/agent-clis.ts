import type { Agent } from '../../plan/primitives.ts';
import { CLAUDE_CODE } from '../claude-code/claude-binary.ts';
import { type AgentCli, cliFound, installHint } from '../cli-binary.ts';
import { CODEX } from '../codex/codex-cli.ts';
import { GEMINI_CLI } from '../gemini/gemini-cli.ts';
import { OPENCODE } from '../opencode/opencode-cli.ts';

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

/**
 * One missing CLI, as `ribosome demo --mixed` and `ribosome run` say it: where it was looked for (its
 * variable's value, a path, or PATH) and how to get it. `users`: who needs it (default: its agent).
 */
export function missingCliLine(
  { agent, cli, binary, fromVar }: MissingCli,
  users = `agent ${agent}`,
): string {
  const where = fromVar
    ? `${cli.envVar}=${binary}: not found`
    : `${binary}: not found${binary.includes('/') ? '' : ' on PATH'}`;
  return `${cli.name} (${users}): ${where}; ${installHint(cli)}`;
}

/**
 * Why a plan cannot run, checked before anything starts: the agent CLIs its codons need (a codon's
 * own `agent` included) that are not found, each with the codons that need it; undefined when all are.
 */
export function missingPlanClis(
  codons: ReadonlyArray<{ codonId: string; agent: Agent }>,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const missing = missingClis([...new Set(codons.map((codon) => codon.agent))], env);
  if (missing.length === 0) return undefined;
  const lines = missing.map((m) => {
    const ids = [...new Set(codons.filter((c) => c.agent === m.agent).map((c) => c.codonId))];
    return `  ${missingCliLine(m, `agent ${m.agent}: codon${ids.length > 1 ? 's' : ''} ${ids.join(', ')}`)}`;
  });
  return [
    `${missing.length === 1 ? 'an agent CLI of the plan is' : `${missing.length} agent CLIs of the plan are`} not found; nothing was run:`,
    ...lines,
    '`ribosome doctor` checks every agent CLI.',
  ].join('\n');
}
