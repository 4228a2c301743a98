/** Every scenario of the fault campaign, in the order `npm run chaos` runs them. */
import { diskFull } from './disk-full.ts';
import { fuzz } from './fuzz.ts';
import { kills } from './kills.ts';
import type { Scenario } from './lib/scenario.ts';
import { readonlyDb } from './readonly-db.ts';

export const SCENARIOS: readonly Scenario[] = [kills, diskFull, readonlyDb, fuzz];
