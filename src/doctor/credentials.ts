import type { CheckResult } from './check-result.ts';

/** The variables a provider credential can come from, in the order the agents look at them. */
export const CREDENTIAL_VARIABLES = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'];

/** Says which credential variables are set; reads values only to test them for emptiness. */
export function checkCredentials(env: NodeJS.ProcessEnv): CheckResult {
  const present = CREDENTIAL_VARIABLES.filter((name) => (env[name] ?? '').trim() !== '');
  if (present.length > 0) {
    const absent = CREDENTIAL_VARIABLES.filter((name) => !present.includes(name));
    const rest = absent.length > 0 ? `; absent: ${absent.join(', ')}` : '';
    return { check: 'credentials', status: 'ok', detail: `present: ${present.join(', ')}${rest}` };
  }
  return {
    check: 'credentials',
    status: 'fail',
    detail: `none of ${CREDENTIAL_VARIABLES.join(', ')} is set`,
    fix: 'export ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN, or CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`); --scripted-provider runs need none',
  };
}
