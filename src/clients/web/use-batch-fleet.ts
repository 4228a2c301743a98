import React from 'react';
import type { BatchFleet } from '../batch/fleet/fleet-schema.ts';
import type { DashboardConfig } from './config.ts';

/** How often a batch's page reads its fleet again: jobs start and end, their servers come and go. */
export const FLEET_REFRESH_MS = 2_000;

/**
 * A batch's fleet, read again every FLEET_REFRESH_MS (one request at a time). When a read fails the
 * last fleet stays, and `lost` says why (the dashboard stopped, the key changed).
 */
export function useBatchFleet(
  initial: BatchFleet,
  read: () => Promise<DashboardConfig>,
): { fleet: BatchFleet; lost: string | undefined } {
  const [fleet, setFleet] = React.useState(initial);
  const [lost, setLost] = React.useState<string | undefined>();
  React.useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let disposed = false;
    const again = () => {
      timer = setTimeout(() => {
        read().then(
          (config) => {
            if (disposed) return;
            if (config.batch) setFleet(config.batch);
            setLost(config.batch ? undefined : 'this dashboard no longer shows a batch: reload the page');
            again();
          },
          (error: unknown) => {
            if (disposed) return;
            setLost(`the dashboard cannot be read (${(error as Error).message}); the jobs are as last read`);
            again();
          },
        );
      }, FLEET_REFRESH_MS);
    };
    again();
    return () => {
      disposed = true;
      clearTimeout(timer);
    };
  }, [read]);
  return { fleet, lost };
}
