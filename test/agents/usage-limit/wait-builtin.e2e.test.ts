/** The built-in agent through a usage limit (its reset read exactly from the provider's headers): wait-matrix.ts. */
import { describeUsageLimitWait } from './wait-matrix.ts';

describeUsageLimitWait({ agent: 'builtin', model: 'claude-sonnet-4-5', reset: 'exact' });
