import { commandFound } from '../../src/agents/cli-binary.ts';
import { Plan } from '../../src/plan/plan-schema.ts';

/**
 * Whether a plan may say `sandbox: on` (issue 29: the setting lands with the sandbox), read from the
 * plan schema at run time, and whether this machine has what the sandbox runs on (bubblewrap and
 * socat). Tests that run with the sandbox on ask this and skip with the reason, never silently.
 */
export function sandboxSupport(): { ok: true } | { ok: false; why: string } {
  const parsed = Plan.safeParse({ name: 'probe', codons: [{ id: 'a', prompt: 'p' }], sandbox: 'on' });
  if (!parsed.success) {
    const issue = parsed.error.issues.find((i) => JSON.stringify(i).includes('sandbox'));
    return { ok: false, why: `the plan schema rejects \`sandbox\`${issue ? ` (${issue.message})` : ''}` };
  }
  const missing = ['bwrap', 'socat'].filter((binary) => !commandFound(binary));
  if (missing.length > 0) return { ok: false, why: `${missing.join(' and ')} not installed` };
  return { ok: true };
}

/** `sandbox: on` as a plan's top-level line when plans accept it, else nothing. */
export function sandboxOnLine(): string {
  return sandboxSupport().ok ? 'sandbox: on\n' : '';
}
