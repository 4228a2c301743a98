import type React from 'react';
import { fitMessage } from '../../../core/protocol/message-size.ts';
import { displayLine } from '../../model/display-text.ts';

/** Who takes a message now: the running codon's agent, or why none does ("no codon is running"). */
export type MessageTarget = { codonId: string } | { unavailable: string };

/**
 * A message to the running codon's agent (codon.message; docs/steering.md). Shown
 * to readandwrite pages only, for as long as the page is connected: with no codon to take it, send is
 * disabled and the box says why, and what was typed stays. The text lives with the page (`text`), so
 * a refused message comes back and a tab switch keeps it; the answer (or the refusal) appears in the
 * activity and the controls' line.
 */
export function MessageBox({
  target,
  text,
  setText,
  onSend,
}: {
  target: MessageTarget;
  text: string;
  setText: (text: string) => void;
  onSend: (text: string) => void;
}): React.ReactElement {
  const codonId = 'codonId' in target ? target.codonId : undefined;
  const canSend = codonId !== undefined && text.trim() !== '';
  return (
    <form
      className="message-box"
      data-testid="message-box"
      onSubmit={(e) => {
        e.preventDefault();
        if (!canSend) return;
        onSend(text);
        setText('');
      }}
    >
      <label>
        {codonId !== undefined ? (
          <span>
            message to the agent of <b>{displayLine(codonId)}</b>
          </span>
        ) : (
          <span>
            message to the agent —{' '}
            <span className="tone-muted" data-testid="message-unavailable">
              {'unavailable' in target ? target.unavailable : ''}
            </span>
          </span>
        )}{' '}
        <input
          value={text}
          placeholder={codonId !== undefined ? "it joins the agent's next request" : 'sent once a codon runs'}
          onChange={(e) => setText(fitMessage(e.target.value))}
          data-testid="message-text"
        />
      </label>
      <button
        type="submit"
        data-testid="message-send"
        disabled={!canSend}
        title={'unavailable' in target ? displayLine(target.unavailable) : undefined}
      >
        send
      </button>
    </form>
  );
}
