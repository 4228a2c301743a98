import type { Command } from 'commander';
import { formatProblems, loadPlan } from '../plan/index.ts';

/** Exit code of `ribosome validate` for a plan with errors (1 stays for usage errors and crashes). */
export const INVALID_PLAN_EXIT_CODE = 2;

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('Check a plan file and report every problem in it')
    .argument('<plan>', 'plan file (YAML or JSON)')
    .option('--json', 'print the result as JSON')
    .action(async (planPath: string, options: { json?: boolean }) => {
      const result = await loadPlan(planPath);
      const codonCount = result.ok ? result.plan.codons.length : 0;
      if (options.json) {
        const report = result.ok
          ? { ok: true, name: result.plan.name, codons: codonCount, problems: result.warnings }
          : { ok: false, problems: result.problems };
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      } else {
        const problems = result.ok ? result.warnings : result.problems;
        if (problems.length > 0) process.stdout.write(`${formatProblems(problems, planPath)}\n`);
        if (result.ok) process.stdout.write(`OK: ${result.plan.name} (${count(codonCount)})\n`);
      }
      process.exitCode = result.ok ? 0 : INVALID_PLAN_EXIT_CODE;
    });
}

function count(n: number): string {
  return `${n} codon${n === 1 ? '' : 's'}`;
}
