import React from 'react';
import type { ApprovalWait } from '../../../core/protocol/index.ts';
import { approvalWaitText } from '../../model/approval-wait.ts';
import { displayLine } from '../../model/display-text.ts';
import { Time } from './time.tsx';

/**
 * The run waits for a person to approve a codon (docs/review.md#approval-gates): under the header,
 * amber as every wait. Approve lets the run go on; Request changes opens the send-review dialog set
 * to redo the codon with its comments; Roll back returns to the codon's start, after a confirmation.
 * A read-only page sees the wait and the buttons, disabled, with the reason.
 */
export function ApprovalBanner({
  wait,
  now,
  cannot,
  onApprove,
  onRequestChanges,
  onRollback,
}: {
  wait: ApprovalWait;
  now: number;
  /** Why this page cannot answer (read-only); undefined when it can. */
  cannot?: string;
  onApprove: () => void;
  onRequestChanges: () => void;
  onRollback: () => void;
}): React.ReactElement {
  const [confirming, setConfirming] = React.useState(false);
  const codon = displayLine(wait.codonId);
  const text = displayLine(approvalWaitText(wait));
  return (
    <div className="banner" data-testid="approval-wait" data-codon={wait.codonId} role="status">
      <span className="what" data-testid="approval-text">
        {text.charAt(0).toUpperCase()}
        {text.slice(1)}
      </span>
      <span className="muted">
        since <Time iso={wait.since} now={now} ago />
        {wait.checkpointSha ? ` · at ${wait.checkpointSha.slice(0, 8)}` : ''}
      </span>
      {confirming ? (
        <span className="actions">
          <span data-testid="approval-rollback-confirm-text">
            Roll back to the start of {codon}? Its work and everything after it is undone.
          </span>
          <button
            type="button"
            className="danger"
            onClick={onRollback}
            data-testid="approval-rollback-confirm"
          >
            Yes, roll back
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </span>
      ) : (
        <span className="actions">
          <button
            type="button"
            className="primary-action"
            disabled={cannot !== undefined}
            title={cannot}
            onClick={onApprove}
            data-testid="approval-approve"
          >
            Approve
          </button>
          <button
            type="button"
            disabled={cannot !== undefined}
            title={cannot}
            onClick={onRequestChanges}
            data-testid="approval-changes"
          >
            Request changes…
          </button>
          <button
            type="button"
            className="danger"
            disabled={cannot !== undefined}
            title={cannot}
            onClick={() => setConfirming(true)}
            data-testid="approval-rollback"
          >
            Roll back…
          </button>
        </span>
      )}
      {cannot ? (
        <span className="why muted" data-testid="approval-cannot">
          {displayLine(cannot)}
        </span>
      ) : null}
    </div>
  );
}
