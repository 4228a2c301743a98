import type React from 'react';
import type { BatchFleet } from '../../batch/fleet/fleet-schema.ts';
import { displayLine } from '../../model/display-text.ts';
import { batchHeader, batchRow } from '../model/batch-rows.ts';

/**
 * A batch's jobs (docs/dashboard.md#a-batchs-fleet): one row each, in job order, with its state,
 * progress, spend and last event; a job whose server runs can be opened, the others say what shows
 * their record. `lost` says the dashboard could not be read again (the rows are as last read).
 */
export function BatchFleetView({
  fleet,
  lost,
  opened,
  onOpen,
}: {
  fleet: BatchFleet;
  lost: string | undefined;
  opened: string | undefined;
  onOpen: (job: { index: number; id: string }) => void;
}): React.ReactElement {
  const header = batchHeader(fleet);
  return (
    <section className="fleet" data-testid="view-fleet">
      <div className="batch-header" data-testid="batch-header">
        <b>{displayLine(header.title)}</b> <span className="muted">{header.state}</span>{' '}
        <span data-testid="batch-counts">{header.counts}</span> ·{' '}
        <span data-testid="batch-spend">spent {header.spend}</span>
      </div>
      {fleet.problem ? (
        <div className="notice tone-warn" data-testid="batch-problem">
          {displayLine(fleet.problem)}
        </div>
      ) : null}
      {lost ? (
        <div className="notice tone-bad" data-testid="batch-lost">
          {displayLine(lost)}
        </div>
      ) : null}
      <table>
        <thead>
          <tr>
            <th>job</th>
            <th>state</th>
            <th>codon</th>
            <th>cost</th>
            <th>elapsed</th>
            <th>last event</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {fleet.jobs.map((job) => {
            const row = batchRow(job);
            return (
              <tr
                key={row.id}
                data-testid="batch-job"
                data-id={row.id}
                data-state={row.state}
                className={row.id === opened ? 'selected' : undefined}
              >
                <td>{displayLine(row.id)}</td>
                <td className={`tone-${row.tone}`} data-testid="job-state">
                  {row.state}
                  {row.reason ? (
                    <span className="muted job-reason">{displayLine(` (${row.reason})`)}</span>
                  ) : null}
                </td>
                <td data-testid="job-codons">
                  {row.codons}
                  {row.currentCodon ? (
                    <span className="muted">{displayLine(` · ${row.currentCodon}`)}</span>
                  ) : null}
                </td>
                <td data-testid="job-cost">{row.cost}</td>
                <td>{row.elapsed}</td>
                <td className="last-event">{displayLine(row.lastEvent)}</td>
                <td className="job-action">
                  {row.action.kind === 'open' ? (
                    <button
                      type="button"
                      data-testid="job-open"
                      onClick={() => onOpen({ index: row.index, id: row.id })}
                    >
                      open
                    </button>
                  ) : (
                    <span className="muted" data-testid="job-hint">
                      {row.action.text}
                      {row.action.command ? (
                        <>
                          {' '}
                          <code>{displayLine(row.action.command)}</code>
                        </>
                      ) : null}
                    </span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
