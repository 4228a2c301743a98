import React from 'react';
import type { BrowserClient } from '../../core/client/browser.ts';
import type { ReviewTarget } from '../../core/protocol/index.ts';
import { fitMessage } from '../../core/protocol/message-size.ts';
import { own } from '../../core/protocol/own.ts';
import { useCheckpointRefresh } from '../hooks/use-checkpoint-refresh.ts';
import { useNow } from '../hooks/use-now.ts';
import { createActions } from '../model/actions.ts';
import { approvalWaitText } from '../model/approval-wait.ts';
import { displayLine } from '../model/display-text.ts';
import { orderedCodons, runningCodon } from '../model/store/codons.ts';
import { codonComments, onEarlierRun } from '../model/store/reviews.ts';
import type { CodonRow, RunState } from '../model/store/run-state.ts';
import { nextCodonId, refusedMessage, runWord, statusNotice } from '../model/store/selectors.ts';
import { currentRunCost, currentRunCostEstimated, describeCost } from '../model/store/totals.ts';
import { readAddress, writeAddress } from './address.ts';
import { Activity } from './components/activity.tsx';
import { ApprovalBanner } from './components/approval-banner.tsx';
import { Changes, type ReviewControls } from './components/changes.tsx';
import { Controls, type Dialog } from './components/controls.tsx';
import { CostView } from './components/cost-chart.tsx';
import { Fleet, type FleetSummary } from './components/fleet.tsx';
import type { MessageTarget } from './components/message-box.tsx';
import { Modal } from './components/modal.tsx';
import { Overview } from './components/overview.tsx';
import { SendReviewDialog } from './components/review.tsx';
import { ThemeToggle } from './components/theme-toggle.tsx';
import { UsageWaitBanner } from './components/usage-wait-banner.tsx';
import type { DashboardConfig } from './config.ts';
import { isTextEntry, KEY_HELP, keyCommand, VIEWS, type ViewId } from './keys.ts';
import { echoesCommand } from './model/progress.ts';
import { type CommentView, markEarlier } from './model/review.ts';
import { runLook, type StatusLook } from './model/status-look.ts';
import { useConnection, useDashboard } from './use-dashboard.ts';

/** Why a read-only page shows comments but cannot write or send them. */
const READONLY_REVIEW = 'read-only: this page can read the review, not write or send it';
/** Why a read-only page sees an approval wait but cannot answer it. */
const READONLY_APPROVAL = 'read-only: only a page in control can approve, request changes or roll back';

/** The page: one dashboard per server (only the open one is shown), and the fleet of them all. */
export function App({
  config,
  ticket,
}: {
  config: DashboardConfig;
  /** A fresh WebSocket ticket for a server of the page (page-key.ts). */
  ticket: (url: string) => Promise<string>;
}): React.ReactElement {
  const urls = config.servers.map((s) => s.url);
  const [active, setActive] = React.useState(urls[0] ?? '');
  const [view, setShownView] = React.useState<ViewId>(
    () => readAddress().view ?? (urls.length > 1 ? 'fleet' : 'overview'),
  );
  // A view is a step of the page's history: Back returns to the one before.
  const setView = React.useCallback((v: ViewId) => {
    setShownView(v);
    writeAddress({ view: v }, true);
  }, []);
  React.useEffect(() => {
    const onPop = () => setShownView(readAddress().view ?? 'overview');
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const [summaries, setSummaries] = React.useState<Readonly<Record<string, FleetSummary>>>({});
  const report = React.useCallback(
    (s: FleetSummary) =>
      setSummaries((all) => {
        const was = all[s.url];
        return was && JSON.stringify(was) === JSON.stringify(s) ? all : { ...all, [s.url]: s };
      }),
    [],
  );
  if (urls.length === 0) return <p className="empty">No server to show: /config.json lists none.</p>;
  const fleet = (
    <Fleet
      servers={urls.map((url) => summaries[url] ?? { url, status: 'connecting', cost: 0 })}
      active={active}
      onOpen={(url) => {
        setActive(url);
        setView('overview');
      }}
    />
  );
  return (
    <>
      {urls.map((url) => (
        <ServerPane
          key={url}
          url={url}
          readonly={config.readonly}
          ticket={ticket}
          visible={url === active}
          view={view}
          setView={setView}
          onSummary={report}
          fleet={fleet}
        />
      ))}
    </>
  );
}

export type PaneProps = {
  url: string;
  /** What the title names the server by (default its URL): a batch's job by its id. */
  label?: string;
  readonly: boolean;
  ticket: (url: string) => Promise<string>;
  visible: boolean;
  view: ViewId;
  setView: (v: ViewId) => void;
  onSummary: (s: FleetSummary) => void;
  fleet: React.ReactElement;
};

/** One server: its dashboard once connected, else how the connection fares (or the fleet, on its tab). */
export function ServerPane(props: PaneProps): React.ReactElement | null {
  const connection = useConnection(props.url, props.readonly, props.ticket);
  const { url, onSummary } = props;
  const phase = connection.phase;
  const message = connection.phase === 'failed' ? connection.message : '';
  React.useEffect(() => {
    if (phase !== 'open')
      onSummary({ url, status: phase === 'failed' ? `unreachable: ${message}` : 'connecting', cost: 0 });
  }, [url, phase, message, onSummary]);
  if (connection.phase === 'open') return <Dashboard {...props} client={connection.client} />;
  if (!props.visible) return null;
  return (
    <main>
      <Tabs view={props.view} setView={props.setView} title={props.label ?? props.url} status={phase} />
      {props.view === 'fleet' ? (
        props.fleet
      ) : (
        <section>
          <div className="empty-state" data-testid="disconnected">
            {phase === 'failed' ? (
              <>
                <b>Cannot reach {displayLine(url)}</b>
                {displayLine(message)}
                <p className="hint">
                  The page tries again every 2 s. Is the server (ribosome run) still running on that port?
                </p>
              </>
            ) : (
              <>
                <b>Connecting to {displayLine(url)}…</b>
                The run shows here once the server answers.
              </>
            )}
          </div>
        </section>
      )}
    </main>
  );
}

function Dashboard(props: PaneProps & { client: BrowserClient }): React.ReactElement | null {
  const { client, visible, view, setView, onSummary, url } = props;
  const [state, dispatch] = useDashboard(client);
  const now = useNow(1_000, visible);
  const [selected, setSelected] = React.useState<string | undefined>(() => readAddress().codon);
  React.useEffect(() => {
    if (!visible || !selected) return;
    // Another codon: the checkpoints the address named were the other one's diff.
    if (readAddress().codon !== selected) writeAddress({ codon: selected, from: undefined, to: undefined });
  }, [visible, selected]);
  const [follow, setFollow] = React.useState(true);
  const [dialog, setDialog] = React.useState<Dialog>();
  // The send-review dialog: for which codon, opened on which choice (Request changes: redo).
  const [reviewing, setReviewing] = React.useState<
    { codonId: string; preset?: ReviewTarget; title?: string } | undefined
  >();
  const canControl = client.mode === 'readandwrite' && !props.readonly;
  const actions = React.useMemo(() => createActions(client, dispatch), [client, dispatch]);
  // While the connection is down every control is disabled and says why, as on a read-only page.
  const offline =
    state.run.connection.state === 'open' ? undefined : `not connected: ${state.run.connection.state}`;
  const review: ReviewControls = canControl
    ? {
        comment: actions.reviewComment,
        send: (codonId) => setReviewing({ codonId }),
        ...(offline ? { offline } : {}),
      }
    : { cannot: READONLY_REVIEW, comment: () => {}, send: () => {} };
  const codons = orderedCodons(state.run.codons);
  const running = runningCodon(state.run.codons);
  const current = selected ?? running?.codonId ?? codons.findLast((c) => c.attempts > 0)?.codonId;
  // The message being typed: kept across tabs, and a refused message's text comes back to it (once).
  const [draft, setDraft] = React.useState('');
  const refused = refusedMessage(state.run.commands);
  const restored = React.useRef<string | undefined>(undefined);
  React.useEffect(() => {
    if (refused === undefined || restored.current === refused.id) return;
    restored.current = refused.id;
    setDraft((typed) => fitMessage(typed === '' ? refused.text : `${refused.text} ${typed}`));
  }, [refused]);

  React.useEffect(() => {
    onSummary({
      url,
      status: `${state.run.connection.state} · ${runWord(state.run.run)}`,
      ...(running ? { currentCodon: running.codonId } : {}),
      cost: currentRunCost(state.run.run),
      costEstimated: currentRunCostEstimated(state.run.run),
      ...(state.run.run.runId ? { runId: state.run.run.runId } : {}),
    });
  }, [url, onSummary, state.run.connection.state, state.run.run, running]);

  // The run's branch and checkpoints, known at connect and after each new run (as in the TUI).
  useCheckpointRefresh(client, state.run.connection, state.run.run.runId);
  const synced = !state.run.connection.syncing;

  React.useEffect(() => {
    if (!visible) return;
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (target && isTextEntry(target as HTMLInputElement) && e.key !== 'Escape') return;
      // A focused select keeps its arrows; its letters and digits are the app's.
      if (target?.tagName === 'SELECT' && e.key.startsWith('Arrow')) return;
      const command = keyCommand(e.key, !canControl);
      if (!command) return;
      e.preventDefault();
      switch (command.kind) {
        case 'view':
          return setView(command.view);
        case 'next':
          return actions.next();
        case 'skip':
          return actions.skip();
        case 'redo':
          return actions.redo();
        case 'start':
          return current ? actions.start(current) : undefined;
        case 'stop':
          return setDialog('stop');
        case 'rollback':
          return setDialog('rollback');
        case 'checkpoints':
          return actions.listCheckpoints();
        case 'follow':
          return setFollow((f) => !f);
        case 'help':
          return setDialog((d) => (d === 'help' ? undefined : 'help'));
        case 'close':
          setReviewing(undefined);
          return setDialog(undefined);
        case 'select': {
          const ids = codons.map((c) => c.codonId);
          const at = current ? ids.indexOf(current) : -1;
          const next = ids[Math.max(0, Math.min(ids.length - 1, at + command.by))];
          if (next) setSelected(next);
          return;
        }
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [visible, canControl, actions, current, codons, setView]);

  if (!visible) return null;
  const notice = statusNotice(state.run);
  const usageWait = state.run.run.usageWait;
  const approval = state.run.run.approvalWait;
  const connected = state.run.connection.state === 'open';
  const next = nextCodonId(state.run.run);
  // The phone's header keeps the one action that matters now: start what runs next.
  const primary = !canControl ? undefined : approval ? (
    <button
      type="button"
      className="primary-action"
      disabled={offline !== undefined}
      title={offline}
      onClick={() => actions.approve(approval.codonId)}
      data-testid="primary-approve"
    >
      Approve {displayLine(approval.codonId)}
    </button>
  ) : !running && next ? (
    <button
      type="button"
      className="primary-action"
      disabled={offline !== undefined}
      title={offline}
      onClick={actions.next}
      data-testid="primary-next"
    >
      {usageWait ? 'Start now' : `Next: ${displayLine(next)}`}
    </button>
  ) : undefined;
  return (
    <main className={`view-${view}`}>
      <Tabs
        view={view}
        setView={setView}
        title={`${state.run.connection.plan?.name ?? 'run'} · ${props.label ?? url}`}
        status={`${state.run.connection.state}${canControl ? '' : ' · read-only'}`}
        run={{ word: runWord(state.run.run) || 'starting', look: runLook(state.run.run) }}
        extra={`${describeCost(state.run.run)} · ${state.eventCount} events`}
        {...(primary ? { primary } : {})}
      />
      {!connected ? (
        <div className="banner" data-testid="reconnecting" role="status">
          <span className="what">Disconnected from {displayLine(url)}</span>
          <span className="muted">
            {state.run.connection.state}: the page reconnects by itself and catches up.
          </span>
        </div>
      ) : null}
      {usageWait ? <UsageWaitBanner wait={usageWait} now={now} canControl={canControl} /> : null}
      {approval ? (
        <ApprovalBanner
          wait={approval}
          now={now}
          {...(canControl ? (offline ? { cannot: offline } : {}) : { cannot: READONLY_APPROVAL })}
          onApprove={() => actions.approve(approval.codonId)}
          onRequestChanges={() =>
            setReviewing({
              codonId: approval.codonId,
              preset: 'redo',
              title: `Request changes to ${approval.codonId}`,
            })
          }
          onRollback={() =>
            actions.rollback(
              {
                kind: 'codon',
                codonId: approval.codonId,
                checkpointType: 'start',
                label: `start of ${approval.codonId} (${approval.codonName})`,
              },
              false,
            )
          }
        />
      ) : null}
      {canControl ? (
        <Controls
          state={state}
          actions={actions}
          selected={current}
          dialog={dialog}
          setDialog={setDialog}
          {...(approval
            ? { held: `waiting for approval of ${approval.codonId}: approve it first (or redo it)` }
            : {})}
          {...(offline ? { offline } : {})}
        />
      ) : null}
      {notice &&
      !(approval && notice.text.startsWith(approvalWaitText(approval))) &&
      !(canControl && echoesCommand(notice.text, state.run.commands.at(-1))) ? (
        <div className={`notice tone-${notice.tone}`} data-testid="notice">
          {displayLine(notice.text)}
        </div>
      ) : null}
      {dialog === 'help' ? (
        <Modal>
          <Help readonly={!canControl} />
        </Modal>
      ) : null}
      {view === 'overview' ? (
        <Overview
          state={state}
          selected={current}
          onSelect={setSelected}
          now={now}
          {...(canControl
            ? {
                message: {
                  target: offline ? { unavailable: offline } : messageTarget(running),
                  text: draft,
                  setText: setDraft,
                  onSend: actions.message,
                },
              }
            : {})}
        />
      ) : null}
      {view === 'activity' ? (
        <Activity
          rows={state.log.rows}
          codonIds={codons.map((c) => c.codonId)}
          follow={follow}
          onFollowChange={setFollow}
          synced={synced}
          {...(state.log.dropped ? { dropped: state.log.dropped } : {})}
        />
      ) : null}
      {view === 'changes' ? (
        <Changes
          state={state}
          client={client}
          codonId={current}
          comments={current ? reviewComments(state.run, current) : []}
          review={review}
          now={now}
        />
      ) : null}
      {reviewing ? (
        <Modal>
          <SendReviewDialog
            codonId={reviewing.codonId}
            comments={reviewComments(state.run, reviewing.codonId)}
            running={running?.status === 'running' ? running.codonId : undefined}
            {...(reviewing.preset ? { preset: reviewing.preset } : {})}
            {...(reviewing.title ? { title: reviewing.title } : {})}
            onSend={({ to, note, commentIds }) =>
              actions.reviewSubmit(reviewing.codonId, to, {
                ...(note ? { note } : {}),
                ...(commentIds ? { commentIds } : {}),
              })
            }
            onClose={() => setReviewing(undefined)}
            onOpenChanges={() => {
              setSelected(reviewing.codonId);
              setView('changes');
              setReviewing(undefined);
            }}
          />
        </Modal>
      ) : null}
      {view === 'cost' ? <CostView series={state.series} /> : null}
      {view === 'fleet' ? props.fleet : null}
    </main>
  );
}

export function Tabs({
  view,
  setView,
  title,
  status,
  run,
  extra,
  primary,
}: {
  view: ViewId;
  setView: (v: ViewId) => void;
  title: string;
  /** The connection: `open`, `open · read-only`, `connecting`... */
  status: string;
  /** The run's state in a few words, coloured by what it means. */
  run?: { word: string; look: StatusLook };
  extra?: string;
  /** The action a phone's header keeps (wider screens have the controls bar). */
  primary?: React.ReactElement;
}) {
  return (
    <header>
      <h1 title={title}>
        Ribosome <span className="muted">{displayLine(title)}</span>
      </h1>
      {run ? (
        <span className={`pill ${run.look}`} data-testid="run-pill" title={displayLine(run.word)}>
          {displayLine(run.word)}
        </span>
      ) : null}
      <span className="meta" data-testid="connection">
        {displayLine(status)}
      </span>
      {extra ? <span className="meta wide">{displayLine(extra)}</span> : null}
      {primary ? <span className="primary">{primary}</span> : null}
      <ThemeToggle />
      <nav className="tabs" aria-label="views">
        {VIEWS.map((v) => (
          <button
            type="button"
            key={v.id}
            className={v.id === view ? 'tab active' : 'tab'}
            aria-current={v.id === view ? 'page' : undefined}
            onClick={() => setView(v.id)}
            data-testid={`tab-${v.id}`}
          >
            <span className="key">{v.key}</span>
            {v.label}
          </button>
        ))}
      </nav>
    </header>
  );
}

function Help({ readonly }: { readonly: boolean }) {
  return (
    <div className="dialog help" data-testid="help">
      <table>
        <tbody>
          {KEY_HELP.filter((k) => !readonly || !k.control).map((k) => (
            <tr key={k.keys}>
              <td>
                <kbd>{k.keys}</kbd>
              </td>
              <td>{k.what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Who takes a message from the box: the running codon's agent, or why none does. */
function messageTarget(running: CodonRow | undefined): MessageTarget {
  if (running === undefined) return { unavailable: 'no codon is running' };
  if (running.status !== 'running') return { unavailable: `codon ${running.codonId} is still preparing` };
  return { codonId: running.codonId };
}

/** A codon's comments for the page, those on an earlier run of it marked (a review leaves them). */
function reviewComments(run: RunState, codonId: string): CommentView[] {
  const startTime = own(run.codons, codonId)?.startTime;
  return markEarlier(codonComments(run, codonId), (c) => onEarlierRun(c, startTime));
}
