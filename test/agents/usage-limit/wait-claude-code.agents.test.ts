/** Claude Code with a subscription (an OAuth token) through a usage limit: wait-matrix.ts. */
import { claudeBinary } from '../../../src/agents/claude-code/claude-binary.ts';
import { describeUsageLimitWait } from './wait-matrix.ts';

describeUsageLimitWait({
  agent: 'claude-code',
  model: 'claude-sonnet-4-5',
  binary: claudeBinary(),
  env: { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-ribosome-test', ANTHROPIC_API_KEY: '' },
  reset: 'minute',
});
