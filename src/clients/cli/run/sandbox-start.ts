import { join } from 'node:path';
import { checkSandboxPaths } from '../../../plan/check-sandbox.ts';
import { formatProblems, type LoadedPlan, type RuntimeCodon } from '../../../plan/index.ts';
import type { PlanProblem } from '../../../plan/problems.ts';
import { type EffectiveSandbox, effectiveSandbox } from '../../../plan/sandbox-resolve.ts';
import type { SandboxMode, SandboxSetting } from '../../../plan/sandbox-schema.ts';
import type { SandboxSupport } from '../../../platform/sandbox/index.ts';
import { EXIT, type Refusal, refuse } from './exit.ts';

/** Each codon's sandbox in this run: its settings when its agent runs confined, undefined when it runs unconfined. */
export type SandboxOf = (codon: RuntimeCodon) => EffectiveSandbox | undefined;

export type RunSandbox = {
  sandboxOf: SandboxOf;
  /** One line for stderr and the server log: `auto` found no sandbox, so agents run unconfined. */
  warning: string | undefined;
  /** Whether any codon runs confined (its paths are checked once the execution is placed). */
  any: boolean;
};

/** `--sandbox MODE` / `--no-sandbox` (commander gives `false` for the latter). */
export function sandboxFlag(flag: string | boolean | undefined): { ok: true; mode?: SandboxMode } | Refusal {
  if (flag === undefined || flag === true) return { ok: true };
  if (flag === false) return { ok: true, mode: 'off' };
  if (flag === 'auto' || flag === 'on' || flag === 'off') return { ok: true, mode: flag };
  return refuse(`--sandbox must be auto, on or off, got "${flag}"`);
}

/**
 * Decides, before anything starts, where each codon's agent runs (docs/agents.md#the-sandbox): a
 * codon whose mode is `on` on a machine without the sandbox refuses the run (exit 2, saying what
 * to install); `auto` there runs unconfined with one warning. Pure.
 */
export function runSandbox(
  plan: LoadedPlan,
  config: SandboxSetting | undefined,
  commandLine: SandboxMode | undefined,
  support: SandboxSupport,
): { ok: true; value: RunSandbox } | Refusal {
  const settings = new Map(plan.codons.map((c) => [c.id, effectiveSandbox(c.sandbox, config, commandLine)]));
  const modes = new Set([...settings.values()].map((s) => s.mode));
  if (!support.ok && modes.has('on')) {
    const which = plan.codons.filter((c) => settings.get(c.id)?.mode === 'on').map((c) => c.id);
    return refuse(
      `the sandbox is on (${which.length === plan.codons.length ? 'every codon' : `codons ${which.join(', ')}`}) but this machine cannot run it: ${support.why}. Install it (${support.install}), or run with --sandbox auto or --no-sandbox`,
      EXIT.invalidInput,
    );
  }
  const warning =
    !support.ok && modes.has('auto')
      ? `warning: no sandbox on this machine (${support.why}): agents run unconfined, with your rights; install ${support.missing.join(' and ')} (${support.install}) to confine them`
      : undefined;
  const confined = (s: EffectiveSandbox | undefined) =>
    s !== undefined && (s.mode === 'on' || (s.mode === 'auto' && support.ok));
  return {
    ok: true,
    value: {
      sandboxOf: (codon) => {
        const s = settings.get(codon.id);
        return confined(s) ? s : undefined;
      },
      warning,
      any: [...settings.values()].some(confined),
    },
  };
}

/**
 * The confined codons' paths checked against the placed execution (what validation could not
 * know): a path holding its `.ribosome` or hiding its agent root refuses the run.
 */
export function sandboxPlaceProblems(
  plan: LoadedPlan,
  sandbox: RunSandbox,
  place: { home: string; executionDir: string },
): Refusal | undefined {
  const agentRoot = join(place.executionDir, plan.agentRoot);
  const problems: PlanProblem[] = [];
  for (const codon of plan.codons) {
    const s = sandbox.sandboxOf(codon);
    if (!s) continue;
    const drafts = checkSandboxPaths(
      { allowWrite: s.allowWrite, readOnly: s.readOnly, hide: s.hide },
      [codon.id, 'sandbox'],
      { ...place, agentRoot },
    );
    for (const d of drafts)
      problems.push({ ...d, severity: 'error', file: plan.path, path: d.path.join('.') });
  }
  if (problems.length === 0) return undefined;
  return { ok: false, code: EXIT.invalidInput, text: formatProblems(problems, plan.path) };
}
