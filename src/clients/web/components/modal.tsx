import React from 'react';

/**
 * A dialog over the page: a backdrop dims the rest; when the dialog goes (Escape, Cancel, done), focus
 * returns to the control that opened it.
 */
export function Modal({ children }: { children: React.ReactNode }): React.ReactElement {
  // Read as the dialog first renders: its own effects (which focus its first field) run before ours.
  const opener = React.useRef(typeof document === 'undefined' ? null : document.activeElement);
  React.useEffect(
    () => () => {
      const back = opener.current;
      if (back instanceof HTMLElement && back.isConnected) back.focus();
    },
    [],
  );
  return (
    <>
      <div className="backdrop" data-testid="backdrop" aria-hidden="true" />
      {children}
    </>
  );
}
