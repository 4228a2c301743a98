/**
 * Loads the terminal UI. Ink decides once, when it loads, whether it runs in CI (CI or
 * CONTINUOUS_INTEGRATION set), and then prints only its last frame. The terminal UI is interactive
 * by nature, so Ink is loaded as if not in CI. React (and Ink's reconciler) choose their build once,
 * when they load, from NODE_ENV: unset, that is the development build, which checks and records
 * every render (twice the heap of a long run's attach, and slower frames), so the production build
 * is loaded unless NODE_ENV says otherwise. The environment is left as it was.
 */
export function loadTui(): Promise<typeof import('./index.ts')> {
  return loadInteractive(() => import('./index.ts'));
}

/** Imports a module that draws with Ink (the TUI, the batch table) as `loadTui` does: as if not in CI, React's production build. */
export async function loadInteractive<T>(load: () => Promise<T>): Promise<T> {
  const keys = ['CI', 'CONTINUOUS_INTEGRATION', 'NODE_ENV'] as const;
  const saved = keys.map((key) => [key, process.env[key]] as const);
  for (const key of ['CI', 'CONTINUOUS_INTEGRATION'] as const)
    if (process.env[key] !== undefined) process.env[key] = 'false';
  process.env.NODE_ENV ??= 'production';
  try {
    return await load();
  } finally {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
