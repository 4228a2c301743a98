import { resolve } from 'node:path';
import type { Command } from 'commander';
import {
  AGENT_CLIS,
  type MissingCli,
  missingCliLine,
  missingClis,
} from '../../agents/registry/agent-clis.ts';
import type { Agent } from '../../plan/primitives.ts';
import { exitOnceStopped, run } from './run.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

/** What each demo runs: its plan, its script, and the name of its default execution directory. */
const DEMOS = {
  plain: { plan: 'examples/demo/plan.yaml', script: 'examples/scripts/demo.yaml', name: 'demo' },
  mixed: {
    plan: 'examples/demo/mixed-agents.yaml',
    script: 'examples/scripts/mixed-agents.yaml',
    name: 'mixed-agents',
  },
} as const;

/** The agents of the mixed demo: one codon each (examples/demo/mixed-agents.yaml). */
export const MIXED_DEMO_AGENTS: readonly Agent[] = ['builtin', ...(Object.keys(AGENT_CLIS) as Agent[])];

type DemoFlags = { execution?: string; keepServing?: boolean; exitWhenDone?: boolean; mixed?: boolean };

/**
 * `ribosome demo`: the demo plan, offline (built-in agent, scripted provider), in a fresh execution
 * directory each time, printing what happens and exiting when the plan has run. `--mixed`: the
 * mixed-agents plan instead, one codon per agent, once every agent CLI is found.
 */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'Run the demo plan offline on the scripted provider: the built-in agent, or with --mixed one codon per agent',
    )
    .option(
      '--mixed',
      'the mixed-agents demo: one codon per agent (built-in, Claude Code, Codex, Gemini CLI, opencode)',
    )
    .option(
      '--execution <dir>',
      'execution directory (default ./ribosome-runs/demo-<time>, mixed-agents-<time>)',
    )
    .option('--keep-serving', 'keep the server running after the plan has run')
    .option('--exit-when-done', 'exit once the plan has run (the default; as `run --exit-when-done`)')
    .action(async (flags: DemoFlags) => {
      if (flags.keepServing && flags.exitWhenDone) {
        process.stderr.write('ribosome: --keep-serving and --exit-when-done contradict each other\n');
        process.exitCode = 2;
        return;
      }
      if (flags.mixed) {
        const missing = missingClis(MIXED_DEMO_AGENTS);
        if (missing.length > 0) {
          process.stderr.write(missingText(missing));
          process.exitCode = 2;
          return;
        }
      }
      const demo = DEMOS[flags.mixed ? 'mixed' : 'plain'];
      const execution =
        flags.execution ?? `ribosome-runs/${demo.name}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      process.stderr.write(`Ribosome demo: execution directory ${resolve(execution)}\n`);
      exitOnceStopped(
        await run(resolve(ROOT, demo.plan), {
          execution,
          autostart: true,
          scriptedProvider: resolve(ROOT, demo.script),
          exitWhenDone: !flags.keepServing,
        }),
      );
    });
}

/** Why the mixed demo does not start: each CLI missing, where it was looked for, how to install it. */
export function missingText(missing: readonly MissingCli[]): string {
  const lines = missing.map((m) => `  ${missingCliLine(m)}\n`);
  return [
    `ribosome demo --mixed: ${missing.length === 1 ? 'an agent CLI is' : `${missing.length} agent CLIs are`} missing (the demo runs a codon with each); nothing was run:\n`,
    ...lines,
    '`ribosome doctor` checks every agent CLI; `ribosome demo` alone needs none.\n',
  ].join('');
}
