import { CREDENTIAL_VARS, presentCredentials } from '../credentials/credentials.ts';
import type { CheckResult } from './check-result.ts';

/** Says which credential variables are set; reads values only to test them for emptiness. */
export function checkCredentials(env: NodeJS.ProcessEnv): CheckResult {
  const present = presentCredentials(env);
  if (present.length > 0) {
    const absent = CREDENTIAL_VARS.filter((name) => !present.includes(name));
    const rest = absent.length > 0 ? `; absent: ${absent.join(', ')}` : '';
    return { check: 'credentials', status: 'ok', detail: `present: ${present.join(', ')}${rest}` };
  }
  return {
    check: 'credentials',
    status: 'fail',
    detail: `none of ${CREDENTIAL_VARS.join(', ')} is set`,
    fix: 'export ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN, or CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`); --scripted-provider runs need none',
  };
}
