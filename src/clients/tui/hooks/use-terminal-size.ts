import { useStdout } from 'ink';
import React from 'react';

export type Size = { width: number; height: number };

/** The terminal's size, following resizes; `fixed` (tests) overrides it. */
export function useTerminalSize(fixed?: Size): Size {
  const { stdout } = useStdout();
  const read = React.useCallback(
    (): Size => fixed ?? { width: stdout.columns || 80, height: stdout.rows || 24 },
    [fixed, stdout],
  );
  const [size, setSize] = React.useState(read);
  React.useEffect(() => {
    if (fixed) {
      setSize(fixed);
      return;
    }
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [fixed, read, stdout]);
  return size;
}
