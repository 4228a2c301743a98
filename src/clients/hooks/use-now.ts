import React from 'react';

/** The current time, ticking every `intervalMs` while `active`; only the component using it re-renders. */
export function useNow(intervalMs: number, active = true): number {
  const [now, setNow] = React.useState(Date.now);
  React.useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, active]);
  return now;
}
