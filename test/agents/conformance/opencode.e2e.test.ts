/** opencode (the real CLI, `opencode-ai`) through the conformance suite. */
import { join } from 'node:path';
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { OPENCODE } from '../../../src/agents/opencode/opencode-cli.ts';
import { describeConformance } from './harness.ts';

describeConformance({
  agent: 'opencode',
  script: join(import.meta.dirname, 'scripts/opencode.yaml'),
  model: 'claude-sonnet-4-5',
  binary: cliBinary(OPENCODE),
});
