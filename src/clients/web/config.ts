import type { BatchFleet } from '../batch/fleet/fleet-schema.ts';
import { isBatchFleet } from '../batch/fleet/fleet-shape.ts';

/**
 * What the page shows, from `/config.json` (docs/dashboard.md): a fixed list of servers, or a
 * batch's fleet (its `servers` then empty), and whether it may only watch.
 */
export type DashboardConfig = { servers: { url: string }[]; readonly: boolean; batch?: BatchFleet };

/** Reads `/config.json` afresh (no-store), with the page's key; throws with a message a person can act on. */
export async function readConfig(key: string | undefined): Promise<DashboardConfig> {
  const response = await fetch('config.json', {
    cache: 'no-store',
    ...(key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } }),
  });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { message?: string };
    throw new Error(body.message ?? `config.json: HTTP ${response.status}`);
  }
  const body = (await response.json()) as {
    servers?: { url: string }[];
    readonly?: boolean;
    batch?: unknown;
  };
  const config: DashboardConfig = { servers: body.servers ?? [], readonly: body.readonly === true };
  if (body.batch === undefined) return config;
  if (!isBatchFleet(body.batch))
    throw new Error('config.json: its batch is not a fleet this page can show (reload it)');
  return { ...config, batch: body.batch };
}
