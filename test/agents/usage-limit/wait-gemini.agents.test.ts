/** Gemini CLI (a daily quota, no reset said: unknownResetWaitMs) through a usage limit: wait-matrix.ts. */
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { GEMINI_CLI } from '../../../src/agents/gemini/gemini-cli.ts';
import { describeUsageLimitWait } from './wait-matrix.ts';

describeUsageLimitWait({
  agent: 'gemini',
  model: 'gemini-2.5-flash',
  binary: cliBinary(GEMINI_CLI),
  reset: 'none',
});
