/** Claude Code (the real CLI, `@anthropic-ai/claude-code`) through the conformance suite. */
import { join } from 'node:path';
import { claudeBinary } from '../../../src/agents/claude-code/claude-binary.ts';
import { describeConformance } from './harness.ts';

describeConformance({
  agent: 'claude-code',
  script: join(import.meta.dirname, 'scripts/claude-code.yaml'),
  model: 'claude-sonnet-4-5',
  binary: claudeBinary(),
  // Its own retries of a 429 (ten by default, backing off) would take minutes.
  env: { CLAUDE_CODE_MAX_RETRIES: '0' },
});
