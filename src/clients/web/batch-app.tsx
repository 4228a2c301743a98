import React from 'react';
import type { BatchFleet, FleetJob } from '../batch/fleet/fleet-schema.ts';
import { notRunningMessage } from '../batch/fleet/job-words.ts';
import { displayLine } from '../model/display-text.ts';
import { ServerPane, Tabs } from './app.tsx';
import { BatchFleetView } from './components/batch-fleet.tsx';
import type { FleetSummary } from './components/fleet.tsx';
import type { DashboardConfig } from './config.ts';
import type { ViewId } from './keys.ts';
import { batchHeader } from './model/batch-rows.ts';
import { useBatchFleet } from './use-batch-fleet.ts';

type JobRef = { index: number; id: string };

/**
 * The page of a batch (docs/dashboard.md#a-batchs-fleet): its fleet, read again every two seconds,
 * and at most one job open, connected only once opened (a batch may have hundreds). A job's server
 * is the one its fleet names now: a retried job's new server is followed, and when none runs the
 * pane says so and leads back to the fleet.
 */
export function BatchApp({
  initial,
  readonly,
  read,
  ticket,
}: {
  initial: BatchFleet;
  readonly: boolean;
  read: () => Promise<DashboardConfig>;
  /** A fresh WebSocket ticket for a job (page-key.ts). */
  ticket: (job: JobRef) => Promise<string>;
}): React.ReactElement {
  const { fleet, lost } = useBatchFleet(initial, read);
  const [opened, setOpened] = React.useState<JobRef>();
  const [view, setView] = React.useState<ViewId>('fleet');
  const job = opened && fleet.jobs.find((j) => j.index === opened.index && j.id === opened.id);
  const openedIndex = opened?.index;
  const openedId = opened?.id;
  const jobTicket = React.useCallback(
    () =>
      openedIndex === undefined || openedId === undefined
        ? Promise.reject(new Error('no job is open'))
        : ticket({ index: openedIndex, id: openedId }),
    [ticket, openedIndex, openedId],
  );
  const fleetView = (
    <BatchFleetView
      fleet={fleet}
      lost={lost}
      opened={opened?.id}
      onOpen={(j) => {
        setOpened(j);
        setView('overview');
      }}
    />
  );
  const back = () => setView('fleet');
  if (opened && job?.url !== undefined) {
    return (
      <ServerPane
        key={job.url}
        url={job.url}
        label={`${fleet.name} / ${job.id}`}
        readonly={readonly}
        ticket={jobTicket}
        visible
        view={view}
        setView={setView}
        onSummary={ignoreSummary}
        fleet={fleetView}
      />
    );
  }
  const header = batchHeader(fleet);
  return (
    <main>
      <Tabs view={opened ? view : 'fleet'} setView={setView} title={header.title} status={header.state} />
      {opened && view !== 'fleet' ? <JobGone job={job} id={opened.id} onBack={back} /> : fleetView}
    </main>
  );
}

const ignoreSummary = (_summary: FleetSummary) => {};

/** The open job's server is gone (its run ended) or the job left the list: say so, and lead back. */
function JobGone({ job, id, onBack }: { job: FleetJob | undefined; id: string; onBack: () => void }) {
  return (
    <section className="job-gone" data-testid="job-gone">
      <p>
        {job === undefined
          ? displayLine(`Job ${id} is no longer in this batch's list.`)
          : withCode(`${notRunningMessage(job)}.`)}
      </p>
      <button type="button" data-testid="back-to-fleet" onClick={onBack}>
        back to the fleet
      </button>
    </section>
  );
}

/** Text with `commands` in backquotes, shown as code. */
function withCode(text: string): React.ReactNode[] {
  return text
    .split('`')
    .map((part, i) => (i % 2 === 1 ? <code key={part}>{displayLine(part)}</code> : displayLine(part)));
}
