/** Codex (the real CLI, `@openai/codex`) through the conformance suite. */
import { join } from 'node:path';
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { CODEX } from '../../../src/agents/codex/codex-cli.ts';
import { describeConformance } from './harness.ts';

describeConformance({
  agent: 'codex',
  script: join(import.meta.dirname, 'scripts/codex.yaml'),
  // Codex's own default model (its tools in an additional_tools item: code mode).
  model: 'gpt-6.2-sol',
  binary: cliBinary(CODEX),
  // Codex gives up a 429 at once; the engine classifies it.
  env: { RIBOSOME_CODEX_MAX_RETRIES: '0' },
  reportsCost: false,
  usageMidTurn: false,
});
