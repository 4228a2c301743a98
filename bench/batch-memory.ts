/**
 * The memory of one running job: its `ribosome run` and every process under it (the agent, its
 * tools, git), sampled from /proc while the job runs a one-codon plan whose two answers each take
 * `delayMs` (the agent waits on its model, as it does most of a real job's time). One job per agent
 * whose CLI is installed; a missing one is skipped with a line saying so.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLAUDE_CODE } from '../src/agents/claude-code/claude-binary.ts';
import { type AgentCli, cliFound } from '../src/agents/cli-binary.ts';
import { CODEX } from '../src/agents/codex/codex-cli.ts';
import { GEMINI_CLI } from '../src/agents/gemini/gemini-cli.ts';
import { OPENCODE } from '../src/agents/opencode/opencode-cli.ts';
import { planFor, runRibosome, script } from './batch-jobs.ts';
import { mb } from './stats.ts';

/** Each agent, its CLI (none for the built-in agent) and a model its wire API serves. */
const AGENTS: { agent: string; cli?: AgentCli; model?: string }[] = [
  { agent: 'builtin' },
  { agent: 'claude-code', cli: CLAUDE_CODE },
  { agent: 'codex', cli: CODEX, model: 'gpt-6.2-sol' },
  { agent: 'gemini', cli: GEMINI_CLI, model: 'gemini-2.5-flash' },
  { agent: 'opencode', cli: OPENCODE },
];

export type JobMemory =
  | {
      agent: string;
      wallMs: number;
      cpuMs?: number;
      samples: number;
      peakMb: number;
      steadyMb: number;
      /** The largest processes of the tree, by their own peak (VmHWM). */
      largest: { name: string; peakMb: number }[];
      processes: number;
    }
  | { agent: string; skipped: string };

export async function jobMemory(
  dir: string,
  wanted: readonly string[],
  delayMs: number,
): Promise<JobMemory[]> {
  const scriptFile = join(dir, 'agents-script.yaml');
  writeFileSync(scriptFile, script(delayMs));
  const results: JobMemory[] = [];
  for (const { agent, cli, model } of AGENTS.filter((a) => wanted.includes(a.agent))) {
    const found = cli ? cliFound(cli) : undefined;
    if (cli && found && !found.found) {
      results.push({ agent, skipped: `${cli.name} is not installed (\`${found.binary}\` not found)` });
      continue;
    }
    const plan = join(dir, `plan-${agent}.yaml`);
    writeFileSync(plan, planFor(agent, model));
    const args = ['run', plan, '--headless', '--exit-when-done', '--execution', join(dir, `memory-${agent}`)];
    const run = await runRibosome([...args, '--port', '0', '--scripted-provider', scriptFile], {
      watch: { everyMs: 100, scope: 'tree' },
      cpu: true,
    });
    const memory = run.memory!;
    results.push({
      agent,
      wallMs: Math.round(run.wallMs),
      ...(run.cpuMs === undefined ? {} : { cpuMs: Math.round(run.cpuMs) }),
      samples: memory.samples,
      peakMb: mb(memory.peakBytes),
      steadyMb: mb(memory.steadyBytes),
      largest: memory.processes.slice(0, 3).map((p) => ({ name: p.name, peakMb: mb(p.peakBytes) })),
      processes: memory.processes.length,
    });
  }
  return results;
}
