/** Gemini CLI (the real CLI, `@google/gemini-cli`) through the conformance suite. */
import { join } from 'node:path';
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { GEMINI_CLI } from '../../../src/agents/gemini/gemini-cli.ts';
import { describeConformance } from './harness.ts';

describeConformance({
  agent: 'gemini',
  script: join(import.meta.dirname, 'scripts/gemini.yaml'),
  model: 'gemini-2.5-flash',
  binary: cliBinary(GEMINI_CLI),
  // One attempt per model request: the 429 ends the codon at once (its default here is 3, 5 s apart).
  env: { RIBOSOME_GEMINI_MAX_ATTEMPTS: '1' },
  reportsCost: false,
  // Gemini CLI reports tokens at the end of its run.
  usageMidTurn: false,
});
