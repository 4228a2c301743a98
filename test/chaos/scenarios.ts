/** Every scenario of the fault campaign, in the order `npm run chaos` runs them. */
import { connections } from './connections.ts';
import { crossSite } from './cross-site.ts';
import { diskFull } from './disk-full.ts';
import { emfile } from './emfile.ts';
import { fuzz } from './fuzz.ts';
import { historyFlood } from './history-flood.ts';
import { kills } from './kills.ts';
import type { Scenario } from './lib/scenario.ts';
import { proxyAccess } from './proxy-access.ts';
import { proxyFaults } from './proxy-faults.ts';
import { readonlyDb } from './readonly-db.ts';
import { slowClients } from './slow-clients.ts';

export const SCENARIOS: readonly Scenario[] = [
  kills,
  diskFull,
  readonlyDb,
  emfile,
  fuzz,
  connections,
  crossSite,
  historyFlood,
  slowClients,
  proxyFaults,
  proxyAccess,
];
