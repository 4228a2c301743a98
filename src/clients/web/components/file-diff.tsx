/**
 * One file's diff in the Changes view (changes.tsx), unified or side by side: highlighted lines, line
 * numbers that pick lines for a comment, gutter marks, and the comments under their lines.
 */
import React from 'react';
import type { ReviewSide } from '../../../core/protocol/index.ts';
import { displayLine } from '../../model/display-text.ts';
import { diffLineText, diffTokens } from '../model/diff-highlight.ts';
import { type DiffFile, type Side, splitRows, unifiedRows } from '../model/diff-layout.ts';
import type { TokenLine } from '../model/highlight.ts';
import {
  type CommentView,
  commentsOn,
  commentsUnder,
  isPicked,
  type LinePick,
  linesWord,
} from '../model/review.ts';
import { Tokens } from './code.tsx';
import { CommentCard } from './review.tsx';

/** What a file's diff needs to show and take comments. */
export type DiffReview = {
  /** This page's client ids: their comments read "you". */
  own: readonly string[];
  from: string;
  to: string;
  comments: readonly CommentView[];
  pick: LinePick | undefined;
  /** Absent: lines cannot be picked (read-only, or no codon selected); `cannot` says why. */
  onPick?: (
    at: { file: string; side: ReviewSide; hunk: number; line: number },
    extend: boolean,
    button: HTMLButtonElement,
  ) => void;
  cannot?: string;
  form: React.ReactElement | null;
  now: number;
};

export function FileDiff({
  file,
  layout,
  review,
}: {
  file: DiffFile;
  layout: 'unified' | 'split';
  review: DiffReview;
}) {
  const tokens = React.useMemo(() => diffTokens(file), [file]);
  return (
    <div className="file-diff" data-testid="diff-file" data-path={file.path}>
      <div className="file-head">
        <b data-testid="diff-file-name">
          {displayLine(file.oldPath ? `${file.oldPath} → ${file.path}` : file.path)}
        </b>
        <span className="file-status">{file.status}</span>
        <span className="add">+{file.additions}</span>
        <span className="del">−{file.deletions}</span>
        {file.truncated ? <span className="warn">(truncated)</span> : null}
      </div>
      {file.binary ? (
        <p className="muted">binary file</p>
      ) : (
        <div className="code-scroll">
          {layout === 'unified' ? (
            <Unified file={file} tokens={tokens} review={review} />
          ) : (
            <Split file={file} tokens={tokens} review={review} />
          )}
        </div>
      )}
    </div>
  );
}

/** A line's number: a button that picks it for a comment (or says why it cannot). */
function LineNo({
  file,
  side,
  hunk,
  no,
  review,
  kind,
}: {
  file: string;
  side: ReviewSide;
  hunk: number;
  no: number | undefined;
  review: DiffReview;
  kind: string;
}) {
  const picked = isPicked(review.pick, file, side, no);
  if (no === undefined) return <td className={`no ${kind}`} />;
  const marks = commentsOn(review.comments, { from: review.from, to: review.to, file, side, no });
  return (
    <td className={`no ${kind}${picked ? ' picked' : ''}${marks.length > 0 ? ' commented' : ''}`}>
      {marks.length > 0 ? (
        <button
          type="button"
          className="note-mark"
          data-testid="comment-mark"
          data-side={side}
          data-line={no}
          title={`${marks.length === 1 ? 'a comment' : `${marks.length} comments`} on ${displayLine(linesWord(marks[0] as CommentView))}: show`}
          aria-label={`show the comment on line ${no}`}
          onClick={() => showComment((marks[0] as CommentView).commentId)}
        />
      ) : null}
      <button
        type="button"
        data-testid="line-no"
        data-side={side}
        data-line={no}
        aria-pressed={picked}
        disabled={!review.onPick}
        title={
          review.onPick
            ? `comment on line ${no}${side === 'old' ? ' (before the change)' : ''}; then click another line (or shift-click) for a range`
            : review.cannot
        }
        onClick={(e) => review.onPick?.({ file, side, hunk, line: no }, e.shiftKey, e.currentTarget)}
      >
        {no}
      </button>
    </td>
  );
}

/** Brings a comment under its lines into view, and focus to it. */
function showComment(commentId: string) {
  const card = document.querySelector<HTMLElement>(`.note-row [data-comment-id="${CSS.escape(commentId)}"]`);
  card?.scrollIntoView({ block: 'center' });
  card?.focus({ preventScroll: true });
}

function Source({ text, tokens }: { text: string; tokens: TokenLine | undefined }) {
  return tokens ? <Tokens line={tokens} /> : diffLineText(text);
}

/** The rows under a line: the comments whose last line it is, then the form when the pick ends here. */
function NotesUnder({
  file,
  side,
  no,
  review,
  span,
}: {
  file: string;
  side: ReviewSide;
  no: number | undefined;
  review: DiffReview;
  span: number;
}) {
  const here = commentsUnder(review.comments, { from: review.from, to: review.to, file, side, no });
  const form =
    review.form && review.pick?.file === file && review.pick.side === side && review.pick.end === no;
  if (here.length === 0 && !form) return null;
  return (
    <tr className="note-row">
      <td colSpan={span}>
        {here.map((c) => (
          <CommentCard key={c.commentId} comment={c} now={review.now} inline own={review.own} />
        ))}
        {form ? review.form : null}
      </td>
    </tr>
  );
}

/** What the unified and the split view of one file take. */
type DiffViewProps = {
  file: DiffFile;
  tokens: (TokenLine | undefined)[] | undefined;
  review: DiffReview;
};

function Unified({ file, tokens, review }: DiffViewProps) {
  const pickSide = review.pick?.file === file.path ? review.pick.side : 'new';
  return (
    <table className="code">
      <tbody>
        {unifiedRows(file).map((r, i) => {
          if (r.kind === 'hunk')
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
              <tr key={i} className="hunk">
                <td colSpan={3}>{r.text}</td>
              </tr>
            );
          // A deleted line is a line of the file before; an added one of the file after; an unchanged
          // one of both: it counts on the side being picked.
          const side: ReviewSide = r.kind === 'del' ? 'old' : r.kind === 'add' ? 'new' : pickSide;
          const no = side === 'old' ? r.oldNo : r.newNo;
          const picked = isPicked(review.pick, file.path, side, no);
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
            <React.Fragment key={i}>
              <tr className={`${r.kind}${picked ? ' picked' : ''}`} data-testid="diff-line">
                <LineNo
                  file={file.path}
                  side="old"
                  hunk={r.hunk}
                  no={r.oldNo}
                  review={review}
                  kind={r.kind}
                />
                <LineNo
                  file={file.path}
                  side="new"
                  hunk={r.hunk}
                  no={r.newNo}
                  review={review}
                  kind={r.kind}
                />
                <td className="src">
                  <span className="sign">{r.kind === 'add' ? '+' : r.kind === 'del' ? '-' : ' '}</span>
                  <Source text={r.text} tokens={tokens?.[r.index]} />
                </td>
              </tr>
              {r.kind !== 'add' ? (
                <NotesUnder file={file.path} side="old" no={r.oldNo} review={review} span={3} />
              ) : null}
              {r.kind !== 'del' ? (
                <NotesUnder file={file.path} side="new" no={r.newNo} review={review} span={3} />
              ) : null}
            </React.Fragment>
          );
        })}
      </tbody>
    </table>
  );
}

/** One side of a side-by-side row: its line number (a comment's pick) and its highlighted text. */
function SideCells({
  file,
  side,
  at,
  hunk,
  tokens,
  review,
}: {
  file: string;
  side: ReviewSide;
  at: Side | undefined;
  hunk: number;
  tokens: (TokenLine | undefined)[] | undefined;
  review: DiffReview;
}) {
  return (
    <>
      <LineNo file={file} side={side} hunk={hunk} no={at?.no} review={review} kind={at?.kind ?? 'empty'} />
      <td
        className={`src ${at?.kind ?? 'empty'}${isPicked(review.pick, file, side, at?.no) ? ' picked' : ''}`}
      >
        {at ? <Source text={at.text} tokens={tokens?.[at.index]} /> : null}
      </td>
    </>
  );
}

function Split({ file, tokens, review }: DiffViewProps) {
  return (
    <table className="code split">
      <tbody>
        {splitRows(file).map((r, i) =>
          r.kind === 'hunk' ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
            <tr key={i} className="hunk">
              <td colSpan={4}>{r.text}</td>
            </tr>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
            <React.Fragment key={i}>
              <tr data-testid="diff-line">
                <SideCells
                  file={file.path}
                  side="old"
                  at={r.left}
                  hunk={r.hunk}
                  tokens={tokens}
                  review={review}
                />
                <SideCells
                  file={file.path}
                  side="new"
                  at={r.right}
                  hunk={r.hunk}
                  tokens={tokens}
                  review={review}
                />
              </tr>
              <NotesUnder file={file.path} side="old" no={r.left?.no} review={review} span={4} />
              <NotesUnder file={file.path} side="new" no={r.right?.no} review={review} span={4} />
            </React.Fragment>
          ),
        )}
      </tbody>
    </table>
  );
}
