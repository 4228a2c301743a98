/**
 * The fault campaign's short versions, process faults: random SIGKILLs with restarts, exhausted file
 * descriptors. `npm run chaos` runs them longer.
 */
import { describe } from 'vitest';
import { emfile } from './emfile.ts';
import { kills } from './kills.ts';
import { shortRuns } from './lib/short-run.ts';

describe('ribosome run under process faults', () => {
  shortRuns([kills, emfile]);
});
