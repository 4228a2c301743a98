import React from 'react';
import type { ClientActions } from '../../model/actions.ts';
import { undoneBy } from '../../model/checkpoint-range.ts';
import { displayLine } from '../../model/display-text.ts';
import { commandLine } from '../../model/store/command-answers.ts';
import {
  nextCodonId,
  type RollbackChoice,
  rollbackTargets,
  runCheckpoints,
} from '../../model/store/selectors.ts';
import type { DashboardState } from '../model/dashboard.ts';
import { showsRollback } from '../model/progress.ts';

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
}): React.ReactElement {
  const next = nextCodonId(state.run.run);
  const rollback = state.run.rollback;
  const last = state.run.commands.at(-1);
  return (
    <section className="controls" data-testid="controls" aria-label="controls">
      <span className="group">
        <button
          type="button"
          className="primary-action"
          data-testid="control-next"
          onClick={actions.next}
          disabled={held !== undefined}
          title={held ?? 'start the next codon (n)'}
        >
          next{next ? `: ${displayLine(next)}` : ''}
        </button>
        <button
          type="button"
          data-testid="control-start"
          disabled={!selected || (held !== undefined && selected !== state.run.run.approvalWait?.codonId)}
          onClick={() => selected && actions.start(selected)}
          title={held ?? 'start the selected codon (g)'}
        >
          start {selected ? displayLine(selected) : '(select a codon)'}
        </button>
        <button
          type="button"
          data-testid="control-skip"
          onClick={actions.skip}
          title="skip the running codon (s)"
        >
          skip
        </button>
        <button
          type="button"
          data-testid="control-redo"
          onClick={actions.redo}
          title="redo the last codon (r)"
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
          title="force stop, with a reason (x)"
        >
          force stop…
        </button>
        <button
          type="button"
          data-testid="control-rollback"
          onClick={() => setDialog('rollback')}
          title="roll back to a checkpoint (b)"
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
            ? displayLine(commandLine(last))
            : ''}
      </span>
      {dialog === 'stop' ? (
        <StopDialog onStop={actions.forceStop} onClose={() => setDialog(undefined)} />
      ) : null}
      {dialog === 'rollback' ? (
        <RollbackDialog state={state} actions={actions} onClose={() => setDialog(undefined)} />
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
