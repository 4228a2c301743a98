import { Box, useApp, useInput } from 'ink';
import React from 'react';
import { useCheckpointRefresh } from '../../hooks/use-checkpoint-refresh.ts';
import { useNow } from '../../hooks/use-now.ts';
import { useRunStore } from '../../hooks/use-run-store.ts';
import { createActions } from '../../model/actions.ts';
import type { ClientPort } from '../../model/client-port.ts';
import { orderedCodons, runningCodon } from '../../model/store/codons.ts';
import { codonComments, unsentComments } from '../../model/store/reviews.ts';
import type { RunState } from '../../model/store/run-state.ts';
import { nextCodonId, refusedMessage, rollbackTargets, statusNotice } from '../../model/store/selectors.ts';
import { type Size, useTerminalSize } from '../hooks/use-terminal-size.ts';
import { makeTheme, ThemeContext } from '../theme.ts';
import { tuiNotice } from '../view/approval-notice.ts';
import { activityLines } from '../view/content/activity-lines.ts';
import { checkpointLines } from '../view/content/checkpoint-lines.ts';
import { codonDetailLines } from '../view/content/codon-detail-lines.ts';
import { codonLines } from '../view/content/codon-lines.ts';
import { errorLines } from '../view/content/error-lines.ts';
import { helpLines } from '../view/content/help-lines.ts';
import { pickerLines } from '../view/content/picker-lines.ts';
import { sentinelLines } from '../view/content/sentinel-lines.ts';
import { type Effect, handleKey, type KeyContext, type KeyInfo } from '../view/keymap.ts';
import { computeLayout, type PaneBox } from '../view/layout.ts';
import type { LineList } from '../view/lines.ts';
import { initialViewState, PANE_TITLES, type PaneId, type ViewState } from '../view/view-state.ts';
import { Footer } from './footer.ts';
import { Header } from './header.ts';
import { Pane } from './pane.ts';

const h = React.createElement;

export type AppProps = {
  client: ClientPort;
  /** Hide every control (also implied when the server granted only readonly). */
  readonly: boolean;
  /** Fixed terminal size (tests); the real terminal's otherwise. */
  size?: Size;
  /** Colour on (default) or off (NO_COLOR). */
  color?: boolean;
  /** Quitting also stops the server (`ribosome run` started both); the help says so. */
  quitStopsServer?: boolean;
  onQuit?: () => void;
  /** Told each state the UI renders (RIBOSOME_TUI_TRACE: trace.ts). */
  onRendering?: (state: RunState) => void;
  /** The dashboard's address as `ribosome run --web` printed it: the header and the help show it. */
  dashboard?: string;
  /** What the starting command said before this screen hid it: the first notice and the help show it. */
  notes?: readonly string[];
};

/** The first notice: the dashboard's address, then what the start said (what it resumes). */
export function startNotice(
  dashboard: string | undefined,
  notes: readonly string[] = [],
): string | undefined {
  const parts = [...(dashboard ? [`dashboard ${dashboard}`] : []), ...notes];
  return parts.length > 0 ? parts.join(' · ') : undefined;
}

/** The proxy as server.ready tells it; servers that do not say are shown as unknown. */
function proxyLabel(proxy: RunState['connection']['proxy']): string {
  if (!proxy) return 'unknown';
  return proxy.enabled ? `on${proxy.url ? ` ${proxy.url}` : ''}` : 'off';
}

type PaneContent = { lines: LineList; anchor: 'top' | 'bottom'; keep?: number; info?: string };

/** The terminal UI: read-state from `useRunStore`, actions from `createActions`, keys from `handleKey`. */
export function App(props: AppProps): React.ReactElement {
  const { client } = props;
  const [state, dispatch] = useRunStore(client);
  props.onRendering?.(state);
  useCheckpointRefresh(client, state.connection, state.run.runId);
  const actions = React.useMemo(() => createActions(client, dispatch), [client, dispatch]);
  // Said once, at the start: the run's first news takes the status line over (the header and the
  // help keep the dashboard's address).
  const first = React.useRef(startNotice(props.dashboard, props.notes));
  React.useEffect(() => {
    if (first.current) dispatch({ kind: 'notice', notice: { text: first.current, tone: 'accent' } });
  }, [dispatch]);
  const [view, setView] = React.useState<ViewState>(initialViewState);
  // Keys can arrive faster than renders: each one must see the view the previous one left. Only a key
  // changes the view (onKey), so the ref is written there alone: a render that React runs with an
  // older state (one it then throws away, or one of a more urgent update) must not set it back.
  const viewRef = React.useRef(view);
  const size = useTerminalSize(props.size);
  const theme = React.useMemo(() => makeTheme(props.color ?? true), [props.color]);
  const readonly = props.readonly || client.mode === 'readonly';
  const { exit } = useApp();

  const layout = computeLayout(size.width, size.height, view.visible);
  const box = (id: PaneId): PaneBox | undefined => layout.rows.flat().find((b) => b.id === id);
  const inner = (id: PaneId) => {
    const b = box(id);
    return b ? b.width - (b.border ? 1 : 0) : size.width;
  };
  const running = runningCodon(state.codons);
  const now = useNow(1_000, running !== undefined);

  const codonsWidth = inner('codons');
  const activityWidth = inner('activity');
  const sentinelsWidth = inner('sentinels');
  const errorsWidth = inner('errors');
  const checkpointsWidth = inner('checkpoints');
  const {
    codons: codonMap,
    activity: entries,
    sentinels: sentinelMap,
    sentinelOrder,
    errors: errorList,
  } = state;
  const { checkpoints: checkpointsView, rollback } = state;
  const { idle, runId, branch } = state.run;
  const codonCursor = view.codonCursor;
  const codons = React.useMemo(
    () => codonLines(codonMap, idle, codonsWidth, now, state.connection.plan !== undefined, codonCursor),
    [codonMap, idle, codonsWidth, now, state.connection.plan, codonCursor],
  );
  const codonIds = React.useMemo(() => orderedCodons(codonMap).map((c) => c.codonId), [codonMap]);
  const activity = React.useMemo(
    () =>
      activityLines(entries, {
        width: activityWidth,
        expanded: view.expanded,
        cursor: view.activityCursor,
        dropped: state.activityDropped,
      }),
    [entries, activityWidth, view.expanded, view.activityCursor, state.activityDropped],
  );
  const sentinels = React.useMemo(
    () => sentinelLines({ sentinels: sentinelMap, sentinelOrder }, sentinelsWidth),
    [sentinelMap, sentinelOrder, sentinelsWidth],
  );
  const errors = React.useMemo(() => errorLines(errorList, errorsWidth), [errorList, errorsWidth]);
  const checkpoints = React.useMemo(
    () => checkpointLines(checkpointsView, rollback, { runId, branch }, checkpointsWidth),
    [checkpointsView, rollback, runId, branch, checkpointsWidth],
  );
  const targets = React.useMemo(
    () => rollbackTargets(codonMap, checkpointsView, runId),
    [codonMap, checkpointsView, runId],
  );

  const content: Record<PaneId, PaneContent> = {
    codons: {
      lines: codons.lines,
      anchor: 'top',
      ...((codons.selected ?? codons.running) === undefined
        ? {}
        : { keep: codons.selected ?? codons.running }),
      info:
        codons.selected !== undefined
          ? `enter: details${readonly ? '' : ' · g: start'}`
          : running
            ? `running ${running.codonId}`
            : `${Object.keys(state.codons).length} known`,
    },
    activity: {
      lines: activity.lines,
      anchor: 'bottom',
      ...(activity.cursorLine === undefined ? {} : { keep: activity.cursorLine }),
      info: `${view.activityCursor ? 'selected: enter expands, end follows' : 'following'}${
        state.activityDropped > 0
          ? ` · last ${entries.length.toLocaleString('en-US')} of ${(entries.length + state.activityDropped).toLocaleString('en-US')}`
          : ''
      }`,
    },
    sentinels: { lines: sentinels, anchor: 'bottom', info: `${state.sentinelOrder.length}` },
    errors: {
      lines: errors,
      anchor: 'bottom',
      info:
        state.errorsDropped > 0
          ? `last ${state.errors.length} of ${(state.errors.length + state.errorsDropped).toLocaleString('en-US')} (ribosome log has all)`
          : `${state.errors.length}`,
    },
    checkpoints: {
      lines: checkpoints,
      anchor: 'top',
      ...(state.rollback.phase === 'idle'
        ? {}
        : {
            info:
              state.rollback.cause === 'recovery' && state.rollback.phase === 'completed'
                ? 'recovered after a crash'
                : `rollback ${state.rollback.phase}`,
          }),
    },
  };

  const pageSize = Math.max(1, layout.mainHeight - 2);
  const scrollRoom = (id: PaneId) => Math.max(0, content[id].lines.length - ((box(id)?.height ?? 1) - 1));
  const maxScroll: Record<PaneId, number> = {
    codons: scrollRoom('codons'),
    activity: scrollRoom('activity'),
    sentinels: scrollRoom('sentinels'),
    errors: scrollRoom('errors'),
    checkpoints: scrollRoom('checkpoints'),
  };

  const run = (effect: Effect) => {
    switch (effect.kind) {
      case 'next':
        return actions.next();
      case 'skip':
        return actions.skip();
      case 'redo':
        return actions.redo();
      case 'start':
        return actions.start(effect.codonId);
      case 'approve':
        return actions.approve(effect.codonId);
      case 'checkpoints':
        return actions.listCheckpoints();
      case 'forceStop':
        return actions.forceStop(effect.reason);
      case 'message':
        return actions.message(effect.text);
      case 'review':
        return actions.reviewSubmit(effect.codonId, effect.to);
      case 'rollback':
        return actions.rollback(effect.target, effect.autoRestart);
      case 'quit':
        props.onQuit?.();
        exit();
        return;
    }
  };

  // Ink re-subscribes a changed input handler only after the frame is drawn: a key pressed in
  // between would meet the previous render's data. One stable handler reads the latest instead.
  // The entries' ids only when a key asks for them: not a thousand-id array per frame.
  const refused = refusedMessage(state.commands);
  const context: KeyContext = {
    readonly,
    targets,
    get activityIds() {
      return entries.map((e) => e.id);
    },
    codonIds,
    pageSize,
    maxScroll,
    ...(refused === undefined ? {} : { refusedMessage: refused }),
    ...(state.run.approvalWait
      ? {
          approval: {
            codonId: state.run.approvalWait.codonId,
            unsentComments: unsentComments(state, state.run.approvalWait.codonId).length,
          },
        }
      : {}),
  };
  const latest = React.useRef({ run, context });
  latest.current = { run, context };
  const onKey = React.useCallback((input: string, key: KeyInfo) => {
    const outcome = handleKey(viewRef.current, input, key, latest.current.context);
    viewRef.current = outcome.view;
    setView(outcome.view);
    for (const effect of outcome.effects) latest.current.run(effect);
  }, []);
  useInput(onKey);

  const modal = view.modal;
  let main: React.ReactElement;
  const quit = props.quitStopsServer ? 'server' : 'ui';
  if (modal?.kind === 'help' || modal?.kind === 'rollbackPicker' || modal?.kind === 'codonDetails') {
    const picker = modal.kind === 'rollbackPicker';
    const titles = {
      help: 'Help',
      rollbackPicker: 'Roll back to… (↑↓ choose · enter confirm · esc cancel)',
      codonDetails: 'Codon',
    };
    main = h(Pane, {
      title: titles[modal.kind],
      focused: true,
      width: size.width,
      height: layout.mainHeight,
      border: false,
      lines: picker
        ? pickerLines(targets, modal.cursor)
        : modal.kind === 'codonDetails'
          ? codonDetailLines(codonMap[modal.codonId], modal.codonId, {
              plan: state.connection.plan,
              comments: codonComments(state, modal.codonId),
              ...(state.connection.clientIds ? { clientIds: state.connection.clientIds } : {}),
              readonly,
              width: size.width,
              now,
            })
          : helpLines(readonly, client.url, quit, [
              ...(props.dashboard ? [`dashboard ${props.dashboard}`] : []),
              ...(props.notes ?? []),
            ]),
      anchor: 'top',
      scroll: 0,
      ...(picker ? { keep: modal.cursor } : {}),
    });
  } else {
    main = h(
      Box,
      { flexDirection: 'column', height: layout.mainHeight },
      ...layout.rows.map((row, i) =>
        h(
          Box,
          { key: i, flexDirection: 'row', height: row[0]?.height ?? 0 },
          ...row.map((b) =>
            h(Pane, {
              key: b.id,
              title: PANE_TITLES[b.id],
              focused: view.focus === b.id,
              width: b.width,
              height: b.height,
              border: b.border,
              scroll: view.scroll[b.id],
              ...content[b.id],
            }),
          ),
        ),
      ),
    );
  }

  return h(
    ThemeContext.Provider,
    { value: theme },
    h(
      Box,
      { flexDirection: 'column', width: size.width },
      h(Header, {
        connection: state.connection,
        run: state.run,
        proxy: proxyLabel(state.connection.proxy),
        width: size.width,
        readonly,
        ...(props.dashboard ? { dashboard: props.dashboard } : {}),
      }),
      main,
      h(Footer, {
        notice: tuiNotice(statusNotice(state), state.run.approvalWait),
        modal,
        readonly,
        width: size.width,
        next: nextCodonId(state.run),
        codonRunning: running !== undefined,
        approving: state.run.approvalWait !== undefined,
        ...(modal?.kind === 'sendReview' ? { reviewCount: unsentComments(state, modal.codonId).length } : {}),
      }),
    ),
  );
}
