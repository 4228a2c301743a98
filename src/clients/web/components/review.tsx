import React from 'react';
import type { ReviewTarget } from '../../../core/protocol/index.ts';
import {
  fitText,
  REVIEW_NOTE_MAX_BYTES,
  REVIEW_TEXT_MAX_BYTES,
  sizeNearLimit,
} from '../../../core/protocol/message-size.ts';
import { displayLine, displayText } from '../../model/display-text.ts';
import { shortClientId } from '../../model/format.ts';
import {
  type CommentView,
  commentState,
  isLong,
  isUnsent,
  type LinePick,
  linesWord,
  onDiff,
  reviewChoices,
  TARGET_WORDS,
} from '../model/review.ts';

/** Who wrote a comment, in a few words: `you`, a client by its short id, a sentinel by its id. */
function authorWord(author: CommentView['author'], own: readonly string[]): string {
  if (author.kind === 'sentinel') return `sentinel ${author.sentinelId}`;
  return own.includes(author.clientId) ? 'you' : `client ${shortClientId(author.clientId)}`;
}

/** One comment: where, who, its state (unsent, or sent and where), what it says. */
export function CommentCard({
  comment,
  inline,
  offDiff,
  own = [],
}: {
  comment: CommentView;
  now: number;
  /** Shown under its lines in the diff (the place is then plain to see). */
  inline?: boolean;
  /** Made on another diff than the one shown (other checkpoints). */
  offDiff?: boolean;
  own?: readonly string[];
}): React.ReactElement {
  // In the diff, a sent comment folds to one line (it has done its work); a long one shows a few lines.
  const folds = inline === true && !isUnsent(comment);
  const long = isLong(comment.text);
  const [open, setOpen] = React.useState(false);
  const clamp = open ? '' : folds ? ' clamp-1' : long ? ' clamp-4' : '';
  return (
    <div
      className={`comment${folds && !open ? ' folded' : ''}`}
      data-testid="comment"
      data-comment-id={comment.commentId}
      data-state={isUnsent(comment) ? 'unsent' : `sent-${comment.sent.at(-1)?.to}`}
      tabIndex={-1}
    >
      <div className="head">
        {inline ? null : <span className="where">{displayLine(linesWord(comment))}</span>}
        <span>{displayLine(authorWord(comment.author, own))}</span>
        <span
          className={`pill plain ${isUnsent(comment) ? 'st-pending' : 'st-info'}`}
          data-testid="comment-state"
        >
          {displayLine(commentState(comment))}
        </span>
        {offDiff ? (
          <span className="muted">
            on {comment.from.slice(0, 8)}..{comment.to.slice(0, 8)}
          </span>
        ) : null}
      </div>
      <div className={`text${clamp}`} data-testid="comment-text-shown">
        {displayText(comment.text)}
      </div>
      {folds || long ? (
        <button
          type="button"
          className="link more"
          aria-expanded={open}
          onClick={() => setOpen((o) => !o)}
          data-testid="comment-more"
        >
          {open ? 'show less' : folds ? 'show the comment' : 'show more'}
        </button>
      ) : null}
    </div>
  );
}

/**
 * The comment being written under the picked lines: Save sends review.comment; Escape or Cancel drops
 * it. The form stays, with its text, until the server has the comment: a refusal shows under it.
 */
export function CommentForm({
  pick,
  text,
  setText,
  onSave,
  onCancel,
  saving,
  error,
  cannot,
}: {
  pick: LinePick;
  text: string;
  setText: (text: string) => void;
  onSave: () => void;
  onCancel: () => void;
  /** Sent, not answered yet. */
  saving?: boolean;
  /** Why the server refused the last save. */
  error?: string;
  /** Why it cannot be saved now (not connected). */
  cannot?: string;
}): React.ReactElement {
  const area = React.useRef<HTMLTextAreaElement>(null);
  // Picking the lines is asking to write: the text is what comes next.
  React.useEffect(() => area.current?.focus(), []);
  const blocked = text.trim() === '' || saving === true || cannot !== undefined;
  return (
    <form
      className="comment-form"
      data-testid="comment-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!blocked) onSave();
      }}
    >
      <label className="hint" htmlFor="comment-text">
        Comment on {displayLine(linesWord({ file: pick.file, side: pick.side, lines: pick }))}
      </label>
      {pick.hint ? (
        <span className="hint warn" data-testid="comment-pick-hint">
          {displayLine(pick.hint)}
        </span>
      ) : null}
      <textarea
        id="comment-text"
        ref={area}
        value={text}
        placeholder="What should change here?"
        onChange={(e) => setText(fitText(e.target.value, REVIEW_TEXT_MAX_BYTES))}
        onKeyDown={(e) => {
          if (e.key === 'Escape') onCancel();
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !blocked) onSave();
        }}
        data-testid="comment-text"
      />
      <SizeHint text={text} maxBytes={REVIEW_TEXT_MAX_BYTES} testId="comment-size" />
      {error ? (
        <p className="bad" role="alert" data-testid="comment-error">
          Not saved: {displayLine(error)}
        </p>
      ) : null}
      <div className="buttons">
        <button
          type="submit"
          className="primary-action"
          disabled={blocked}
          title={cannot}
          data-testid="comment-save"
        >
          {saving ? 'Saving…' : 'Save comment'}
        </button>
        <button type="button" onClick={onCancel} data-testid="comment-cancel">
          Cancel
        </button>
        <span className="hint">
          <span className="keyboard-only">Ctrl+Enter saves · </span>it is sent with the review
        </span>
      </div>
    </form>
  );
}

/** A codon's review: its comments with their state, and the control that sends them on. */
export function ReviewPanel({
  codonId,
  comments,
  from,
  to,
  now,
  onSend,
  cannot,
  own,
}: {
  codonId: string;
  comments: readonly CommentView[];
  from: string;
  to: string;
  now: number;
  /** Opens the send dialog; absent when this page cannot send (`cannot` says why). */
  onSend?: () => void;
  cannot?: string;
  own?: readonly string[];
}): React.ReactElement {
  const unsent = comments.filter(isUnsent).length;
  const why = cannot ?? (unsent === 0 ? 'no unsent comment to send' : undefined);
  return (
    <div className="review" data-testid="review" data-codon={codonId}>
      <div className="review-head">
        <h3>Review of {displayLine(codonId)}</h3>
        <span className="muted" data-testid="review-count">
          {comments.length === 0
            ? 'no comments'
            : `${comments.length} comment${comments.length === 1 ? '' : 's'} · ${unsent} unsent`}
        </span>
        <span className="send">
          <button
            type="button"
            className="primary-action"
            data-testid="review-send"
            disabled={!onSend || why !== undefined}
            title={why}
            onClick={onSend}
          >
            Send review…
          </button>
        </span>
        {cannot ? (
          <span className="hint" data-testid="review-cannot">
            {displayLine(cannot)}
          </span>
        ) : null}
      </div>
      {comments.length === 0 ? (
        <p className="hint" data-testid="empty-comments">
          {cannot
            ? 'No comments on this codon yet.'
            : 'No comments yet: click a line number in the diff (then another line, or shift-click, for a range), write what should change, save. “Send review” sends them to the agent.'}
        </p>
      ) : (
        <ol>
          {comments.map((c) => (
            <li key={c.commentId}>
              <CommentCard comment={c} now={now} offDiff={!onDiff(c, from, to)} {...(own ? { own } : {})} />
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

const CHOICE_WHY: Readonly<Record<ReviewTarget, string>> = {
  redo: 'The codon runs again from its start checkpoint, the review in its prompt.',
  message: 'The running agent reads the review with its next request.',
  next: 'The next codon to start carries the review in its prompt.',
};

/**
 * Sending a codon's review: where to (redo it from its start, a message to the running agent, or
 * the next codon), an optional note, the unsent comments. `preset`: the choice it opens with.
 */
export function SendReviewDialog({
  codonId,
  comments,
  running,
  preset,
  title,
  onSend,
  onClose,
  onOpenChanges,
}: {
  codonId: string;
  comments: readonly CommentView[];
  /** The codon running now (a message goes to its agent), if any. */
  running: string | undefined;
  preset?: ReviewTarget;
  title?: string;
  onSend: (input: { to: ReviewTarget; note?: string; commentIds?: string[] }) => void;
  onClose: () => void;
  /** Shows the codon's diff, to comment on it (a review sends comments: none, nothing to send). */
  onOpenChanges?: () => void;
}): React.ReactElement {
  const choices = reviewChoices(running);
  const [to, setTo] = React.useState<ReviewTarget>(preset ?? 'redo');
  const [note, setNote] = React.useState('');
  const first = React.useRef<HTMLInputElement>(null);
  React.useEffect(() => first.current?.focus(), []);
  const unsent = comments.filter(isUnsent);
  const chosen = choices.find((c) => c.to === to);
  // A review sends comments (the note goes above them): with none unsent there is nothing to send.
  const empty = unsent.length === 0;
  return (
    <form
      className="dialog"
      data-testid="review-dialog"
      role="dialog"
      aria-label={`send the review of ${codonId}`}
      onSubmit={(e) => {
        e.preventDefault();
        if (chosen?.unavailable || empty) return;
        onSend({
          to,
          ...(note.trim() ? { note: note.trim() } : {}),
          ...(unsent.length > 0 ? { commentIds: unsent.map((c) => c.commentId) } : {}),
        });
        onClose();
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}
    >
      <h2>{displayLine(title ?? `Send the review of ${codonId}`)}</h2>
      <p className="muted" data-testid="review-dialog-count">
        {unsent.length === 0
          ? `No unsent comment on ${displayLine(codonId)}: comment on lines of its diff first (Changes view), then send them.`
          : `${unsent.length} unsent comment${unsent.length === 1 ? '' : 's'}, each with its file, lines and the quoted lines.`}
      </p>
      {unsent.length === 0 && onOpenChanges ? (
        <button type="button" onClick={onOpenChanges} data-testid="review-open-changes">
          Open the changes of {displayLine(codonId)}
        </button>
      ) : null}
      <fieldset>
        {choices.map((c, i) => (
          <label key={c.to} className="choice" data-testid={`review-to-${c.to}`}>
            <input
              ref={i === 0 ? first : undefined}
              type="radio"
              name="review-to"
              value={c.to}
              checked={to === c.to}
              disabled={c.unavailable !== undefined}
              onChange={() => setTo(c.to)}
            />
            <span>
              {c.to === 'redo'
                ? `Redo ${displayLine(codonId)} from its start`
                : c.to === 'next'
                  ? 'Carry into the next codon'
                  : capitalize(TARGET_WORDS[c.to])}
              {c.to === 'message' && running ? ` (${displayLine(running)})` : ''}
              <span className="why">
                {c.unavailable ? `unavailable: ${c.unavailable}` : CHOICE_WHY[c.to]}
              </span>
            </span>
          </label>
        ))}
      </fieldset>
      <label className="hint" htmlFor="review-note" style={{ flexBasis: '100%' }}>
        A note above the comments (optional)
      </label>
      <textarea
        id="review-note"
        value={note}
        onChange={(e) => setNote(fitText(e.target.value, REVIEW_NOTE_MAX_BYTES))}
        placeholder="e.g. Keep the public API as it was."
        data-testid="review-note"
      />
      <SizeHint text={note} maxBytes={REVIEW_NOTE_MAX_BYTES} testId="review-note-size" />
      <div className="buttons">
        <button type="button" onClick={onClose} data-testid="review-cancel">
          Cancel
        </button>
        <button
          type="submit"
          className="primary-action"
          disabled={chosen?.unavailable !== undefined || empty}
          title={chosen?.unavailable ?? (empty ? 'nothing to send: comment on the diff first' : undefined)}
          data-testid="review-submit"
        >
          Send
        </button>
      </div>
    </form>
  );
}

/** How much of its limit a box's text uses, once it is near it (the box keeps no more than the limit). */
function SizeHint({ text, maxBytes, testId }: { text: string; maxBytes: number; testId: string }) {
  const size = sizeNearLimit(text, maxBytes);
  return size ? (
    <span className="hint" data-testid={testId}>
      {size}
    </span>
  ) : null;
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
