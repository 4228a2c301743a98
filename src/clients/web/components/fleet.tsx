import type React from 'react';
import { displayLine } from '../../model/display-text.ts';
import { formatCost } from '../../model/format.ts';

export type FleetSummary = {
  url: string;
  status: string;
  currentCodon?: string;
  cost: number;
  /** Part of `cost` is an estimate (an agent that reports no cost). */
  costEstimated?: boolean;
  runId?: string;
};

/** Every server the dashboard was given, with its state; opening one shows it. */
export function Fleet({
  servers,
  active,
  onOpen,
}: {
  servers: readonly FleetSummary[];
  active: string;
  onOpen: (url: string) => void;
}): React.ReactElement {
  return (
    <section className="fleet" data-testid="view-fleet">
      <table>
        <thead>
          <tr>
            <th>server</th>
            <th>status</th>
            <th>current codon</th>
            <th>cost</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {servers.map((s) => (
            <tr
              key={s.url}
              data-testid="fleet-row"
              data-url={s.url}
              className={s.url === active ? 'selected' : undefined}
            >
              <td>{displayLine(s.url)}</td>
              <td>{displayLine(s.status)}</td>
              <td>{displayLine(s.currentCodon ?? '—')}</td>
              <td>{formatCost(s.cost, s.costEstimated)}</td>
              <td>
                <button type="button" data-testid="fleet-open" onClick={() => onOpen(s.url)}>
                  open
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
