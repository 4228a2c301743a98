import { loadInteractive } from '../../tui/load.ts';

/**
 * Loads the batch table as the TUI is loaded (tui/load.ts): Ink as if not in CI, so that
 * `ribosome batch` on a terminal under CI=true still draws every frame. Import the table through
 * this, never statically, from the CLI.
 */
export function loadBatchView(): Promise<typeof import('./index.ts')> {
  return loadInteractive(() => import('./index.ts'));
}
