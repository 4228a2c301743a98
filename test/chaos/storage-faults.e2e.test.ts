/**
 * The fault campaign's short versions, storage faults (root only: skipped elsewhere, with the
 * reason): a full disk, a database that stops taking writes. `npm run chaos` runs them longer.
 */
import { describe } from 'vitest';
import { diskFull } from './disk-full.ts';
import { shortRuns } from './lib/short-run.ts';
import { readonlyDb } from './readonly-db.ts';

describe('ribosome run under storage faults', () => {
  shortRuns([diskFull, readonlyDb]);
});
