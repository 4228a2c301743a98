/** The built-in agent through the conformance suite: the harness's reference (no CLI to install). */
import { join } from 'node:path';
import { describeConformance } from './harness.ts';

describeConformance({
  agent: 'builtin',
  script: join(import.meta.dirname, 'scripts/builtin.yaml'),
  model: 'claude-sonnet-4-5',
});
