/**
 * Loads the terminal UI. Ink decides once, when it loads, whether it runs in CI (CI or
 * CONTINUOUS_INTEGRATION set), and then prints only its last frame. The terminal UI is interactive
 * by nature, so Ink is loaded as if not in CI; the environment is left as it was.
 */
export async function loadTui(): Promise<typeof import('./index.ts')> {
  const keys = ['CI', 'CONTINUOUS_INTEGRATION'] as const;
  const saved = keys.map((key) => [key, process.env[key]] as const);
  for (const key of keys) if (process.env[key] !== undefined) process.env[key] = 'false';
  try {
    return await import('./index.ts');
  } finally {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
