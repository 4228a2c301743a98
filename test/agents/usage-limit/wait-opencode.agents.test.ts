/**
 * opencode through a usage limit: an API key's spend limit (a 400 it does not retry), as opencode waits
 * out a subscription's 429 itself when its retry-after is short (docs/agents.md#usage-limits): wait-matrix.ts.
 */
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { OPENCODE } from '../../../src/agents/opencode/opencode-cli.ts';
import { describeUsageLimitWait } from './wait-matrix.ts';

describeUsageLimitWait({
  agent: 'opencode',
  model: 'claude-sonnet-4-5',
  binary: cliBinary(OPENCODE),
  kind: 'api-key',
  reset: 'minute',
});
