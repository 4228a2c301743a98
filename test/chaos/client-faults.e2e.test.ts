/**
 * The fault campaign's short versions, faults from clients and from the provider: the protocol
 * fuzzer, a connection flood, pages of other local servers, a history.sync flood, slow and stalled
 * clients, upstream faults behind the proxy, intruders at a proxy beyond loopback. `npm run chaos` runs
 * them longer.
 */
import { describe } from 'vitest';
import { connections } from './connections.ts';
import { crossSite } from './cross-site.ts';
import { fuzz } from './fuzz.ts';
import { historyFlood } from './history-flood.ts';
import { shortRuns } from './lib/short-run.ts';
import { proxyAccess } from './proxy-access.ts';
import { proxyFaults } from './proxy-faults.ts';
import { slowClients } from './slow-clients.ts';

describe('ribosome run under hostile clients and a faulty provider', () => {
  shortRuns([fuzz, connections, crossSite, historyFlood, slowClients, proxyFaults, proxyAccess]);
});
