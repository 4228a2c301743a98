/**
 * The fault campaign's short versions, process and storage faults: random SIGKILLs with restarts, a
 * full disk, a read-only database, exhausted file descriptors. `npm run chaos` runs them longer.
 */
import { describe } from 'vitest';
import { diskFull } from './disk-full.ts';
import { emfile } from './emfile.ts';
import { kills } from './kills.ts';
import { shortRuns } from './lib/short-run.ts';
import { readonlyDb } from './readonly-db.ts';

describe('ribosome run under process and storage faults', () => {
  shortRuns([kills, diskFull, readonlyDb, emfile]);
});
