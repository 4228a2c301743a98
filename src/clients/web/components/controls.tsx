import React from 'react';
import type { ClientActions } from '../../model/actions.ts';
import { undoneBy } from '../../model/checkpoint-range.ts';
import { displayLine } from '../../model/display-text.ts';
import { isEnded, runningCodon } from '../../model/store/codons.ts';
import {
  nextCodonId,
  type RollbackChoice,
  rollbackTargets,
  runCheckpoints,
} from '../../model/store/selectors.ts';
import type { DashboardState } from '../model/dashboard.ts';
import { commandWords, showsRollback } from '../model/progress.ts';
import { Modal } from './modal.tsx';

export type Dialog = 'stop' | 'rollback' | 'help' | undefined;
export const WEB_STOP_REASON = 'stopped from the web dashboard';

/** The run's controls (readandwrite only: the page does not render them for a readonly connection). */
export function Controls({
  state,
  actions,
  selected,
  dialog,
  setDialog,
  held,
  offline,
}: {
  state: DashboardState;
  actions: ClientActions;
  selected: string | undefined;
  dialog: Dialog;
  setDialog: (d: Dialog) => void;
  /**
   * Why no other codon may start now (an approval wait: the server refuses codon.next and codon.start
   * of another codon); next and start say it instead of being refused.
   */
  held?: string;
  /** Why no control works now (not connected): every one is disabled and says so. */
  offline?: string;
}): React.ReactElement {
  const next = nextCodonId(state.run.run);
  const rollback = state.run.rollback;
  const last = state.run.commands.at(-1);
  const codons = Object.values(state.run.codons);
  const nothingRuns = runningCodon(state.run.codons) === undefined ? 'no codon is running' : undefined;
  const noneEnded = codons.some((c) => isEnded(c.status)) ? undefined : 'no codon has ended yet';
  const waiting = state.run.run.approvalWait?.codonId;
  // During an approval wait, starting the waiting codon runs it again and ends the wait.
  const startWhy =
    selected && selected === waiting
      ? `run ${selected} again from its start: ends the approval wait (g)`
      : (held ?? 'start the selected codon (g)');
  return (
    <section className="controls" data-testid="controls" aria-label="controls">
      <span className="group">
        <button
          type="button"
          className="primary-action"
          data-testid="control-next"
          onClick={actions.next}
          disabled={offline !== undefined || held !== undefined}
          title={offline ?? held ?? 'start the next codon (n)'}
        >
          next{next ? `: ${displayLine(next)}` : ''}
        </button>
        <button
          type="button"
          data-testid="control-start"
          disabled={offline !== undefined || !selected || (held !== undefined && selected !== waiting)}
          onClick={() => selected && actions.start(selected)}
          title={offline ?? startWhy}
        >
          start {selected ? displayLine(selected) : '(select a codon)'}
        </button>
        <button
          type="button"
          data-testid="control-skip"
          onClick={actions.skip}
          disabled={(offline ?? nothingRuns) !== undefined}
          title={offline ?? nothingRuns ?? 'skip the running codon (s)'}
        >
          skip
        </button>
        <button
          type="button"
          data-testid="control-redo"
          onClick={actions.redo}
          disabled={(offline ?? noneEnded) !== undefined}
          title={offline ?? noneEnded ?? 'redo the last codon (r)'}
        >
          redo
        </button>
      </span>
      <span className="group">
        <button
          type="button"
          className="danger"
          data-testid="control-stop"
          onClick={() => setDialog('stop')}
          disabled={(offline ?? nothingRuns) !== undefined}
          title={offline ?? nothingRuns ?? 'force stop, with a reason (x)'}
        >
          force stop…
        </button>
        <button
          type="button"
          data-testid="control-rollback"
          onClick={() => setDialog('rollback')}
          disabled={offline !== undefined}
          title={offline ?? 'roll back to a checkpoint (b)'}
        >
          rollback…
        </button>
      </span>
      <span className="progress" data-testid="control-progress">
        {showsRollback(rollback, last)
          ? displayLine(
              `rollback ${rollback.phase}${rollback.totalSteps ? ` ${rollback.currentStep ?? 0}/${rollback.totalSteps}` : ''}${rollback.error ? `: ${rollback.error.message}` : ''}`,
            )
          : last
            ? displayLine(commandWords(last))
            : ''}
      </span>
      {dialog === 'stop' ? (
        <Modal>
          <StopDialog onStop={actions.forceStop} onClose={() => setDialog(undefined)} />
        </Modal>
      ) : null}
      {dialog === 'rollback' ? (
        <Modal>
          <RollbackDialog state={state} actions={actions} onClose={() => setDialog(undefined)} />
        </Modal>
      ) : null}
    </section>
  );
}

function StopDialog({ onStop, onClose }: { onStop: (reason: string) => void; onClose: () => void }) {
  const [reason, setReason] = React.useState('');
  const input = React.useRef<HTMLInputElement>(null);
  // The dialog opens on x or a click: the reason is what the user types next.
  React.useEffect(() => input.current?.focus(), []);
  return (
    <form
      className="dialog"
      data-testid="stop-dialog"
      onSubmit={(e) => {
        e.preventDefault();
        onStop(reason.trim() || WEB_STOP_REASON);
        onClose();
      }}
    >
      <label>
        reason{' '}
        <input
          ref={input}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          data-testid="stop-reason"
        />
      </label>
      <button type="submit" data-testid="stop-confirm">
        force stop
      </button>
      <button type="button" onClick={onClose}>
        cancel
      </button>
    </form>
  );
}

function RollbackDialog({
  state,
  actions,
  onClose,
}: {
  state: DashboardState;
  actions: ClientActions;
  onClose: () => void;
}) {
  const runId = state.run.run.runId;
  const targets = rollbackTargets(state.run.codons, state.run.checkpoints, runId);
  const [index, setIndex] = React.useState(0);
  const [autoRestart, setAutoRestart] = React.useState(false);
  const [confirming, setConfirming] = React.useState(false);
  const target: RollbackChoice | undefined = targets[index];
  const undone = target
    ? undoneBy(target, state.run.codons, runCheckpoints(state.run.checkpoints, runId))
    : [];
  return (
    <div className="dialog" data-testid="rollback-dialog">
      {!confirming ? (
        <>
          <label>
            roll back to{' '}
            <select
              value={index}
              onChange={(e) => setIndex(Number(e.target.value))}
              data-testid="rollback-target"
            >
              {targets.map((t, i) => (
                <option key={`${t.kind}:${t.label}`} value={i}>
                  {displayLine(t.label)}
                </option>
              ))}
            </select>
          </label>
          <label className="chip">
            <input type="checkbox" checked={autoRestart} onChange={(e) => setAutoRestart(e.target.checked)} />
            then restart
          </label>
          <button
            type="button"
            data-testid="rollback-next"
            disabled={!target}
            onClick={() => setConfirming(true)}
          >
            roll back…
          </button>
          <button type="button" onClick={onClose}>
            cancel
          </button>
        </>
      ) : (
        <>
          <p data-testid="rollback-undoes">
            Roll back to {displayLine(target?.label ?? '')}? This undoes{' '}
            {undone.length > 0
              ? `the work of ${undone.join(', ')}`
              : 'nothing a codon did (no codon ran after it)'}
            : the files return to that checkpoint and a new run starts from it.
          </p>
          <button
            type="button"
            data-testid="rollback-confirm"
            onClick={() => {
              if (target) actions.rollback(target, autoRestart);
              onClose();
            }}
          >
            yes, roll back
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            back
          </button>
        </>
      )}
    </div>
  );
}
