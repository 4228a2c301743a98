import React from 'react';
import { displayText } from '../../model/display-text.ts';
import { highlightLines, type TokenLine } from '../model/highlight.ts';

/** One line of highlighted tokens, as text nodes (never HTML). */
export function Tokens({ line }: { line: TokenLine }): React.ReactElement {
  return (
    <>
      {line.map((t, i) =>
        t.cls ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: tokens are positional
          <span key={i} className={t.cls}>
            {t.text}
          </span>
        ) : (
          t.text
        ),
      )}
    </>
  );
}

/**
 * A block of agent text (tool input or output, a file's content) made safe (displayText), then
 * highlighted when its language is one of ours; plain otherwise.
 */
export function Code({
  text,
  language,
  className,
  testId,
}: {
  text: string;
  language: string | undefined;
  className?: string;
  testId?: string;
}): React.ReactElement {
  const safe = displayText(text);
  const lines = React.useMemo(() => highlightLines(safe, language), [safe, language]);
  return (
    <pre className={className} data-testid={testId} data-language={lines ? language : undefined}>
      {lines
        ? lines.map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: lines are positional
            <React.Fragment key={i}>
              {i > 0 ? '\n' : ''}
              <Tokens line={line} />
            </React.Fragment>
          ))
        : safe}
    </pre>
  );
}
