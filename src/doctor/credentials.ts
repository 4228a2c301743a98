import { CREDENTIAL_VARS, presentCredentials } from '../credentials/credentials.ts';
import type { CheckResult } from './check-result.ts';

const SET_ONE =
  'export ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN, or CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`)';

/**
 * Says which credential variables are set; reads values only to test them for emptiness. With none
 * set, a Claude Code login of the user (`loginFile`, its path) makes it a warning: that login serves
 * only claude-code codons run with `claudeConfig: user`.
 */
export function checkCredentials(env: NodeJS.ProcessEnv, loginFile?: string): CheckResult {
  const present = presentCredentials(env);
  if (present.length > 0) {
    const absent = CREDENTIAL_VARS.filter((name) => !present.includes(name));
    const rest = absent.length > 0 ? `; absent: ${absent.join(', ')}` : '';
    return { check: 'credentials', status: 'ok', detail: `present: ${present.join(', ')}${rest}` };
  }
  const none = `none of ${CREDENTIAL_VARS.join(', ')} is set`;
  if (loginFile !== undefined) {
    return {
      check: 'credentials',
      status: 'warn',
      detail: `${none}; a Claude Code login is there (${loginFile})`,
      fix: `the login works only for claude-code codons with \`claudeConfig: user\` (plan or config file); built-in codons, sentinels and claude-code codons with the default claudeConfig isolated need a variable: ${SET_ONE}`,
    };
  }
  return {
    check: 'credentials',
    status: 'fail',
    detail: none,
    fix: `${SET_ONE}; --scripted-provider runs need none`,
  };
}
