import React from 'react';
import { fitMessage } from '../../protocol/codon-message.ts';

/**
 * A message to the running codon's agent (codon.message; README "Steering a running agent"). Shown
 * to readandwrite pages only; the answer (or the refusal) appears in the activity and the controls' line.
 */
export function MessageBox({
  codonId,
  onSend,
}: {
  codonId: string;
  onSend: (text: string) => void;
}): React.ReactElement {
  const [text, setText] = React.useState('');
  return (
    <form
      className="message-box"
      data-testid="message-box"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim() === '') return;
        onSend(text);
        setText('');
      }}
    >
      <label>
        message to the agent of <b>{codonId}</b>{' '}
        <input
          value={text}
          placeholder="it joins the agent's next request"
          onChange={(e) => setText(fitMessage(e.target.value))}
          data-testid="message-text"
        />
      </label>
      <button type="submit" data-testid="message-send" disabled={text.trim() === ''}>
        send
      </button>
    </form>
  );
}
