import type { SandboxSupport } from '../../platform/sandbox/index.ts';
import type { CheckResult } from './check-result.ts';

/**
 * Whether agents can run confined here (docs/agents.md#the-sandbox), and what `sandbox: auto` (the
 * default) will do: confine them, or run them unconfined with a warning. A config file that says
 * `on` makes missing support a failure: its runs refuse to start. Pure.
 */
export function checkSandbox(support: SandboxSupport, configMode?: string): CheckResult {
  if (support.ok)
    return {
      check: 'sandbox',
      status: 'ok',
      detail: `supported (${support.bwrap}, ${support.socat}): sandbox auto confines every agent`,
    };
  const on = configMode === 'on';
  return {
    check: 'sandbox',
    status: on ? 'fail' : 'warn',
    detail: on
      ? `not supported (${support.why}): the config file says sandbox on, so runs refuse to start`
      : `not supported (${support.why}): sandbox auto runs agents unconfined, with your rights`,
    fix: `install ${support.missing.join(' and ')}: ${support.install}`,
  };
}
