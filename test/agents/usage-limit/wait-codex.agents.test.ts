/** Codex (a ChatGPT plan's usage_limit_reached) through a usage limit: wait-matrix.ts. */
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { CODEX } from '../../../src/agents/codex/codex-cli.ts';
import { describeUsageLimitWait } from './wait-matrix.ts';

describeUsageLimitWait({ agent: 'codex', model: 'gpt-6.2-sol', binary: cliBinary(CODEX), reset: 'minute' });
