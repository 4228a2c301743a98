/** Where things are in this checkout, and the environment e2e processes start from. */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../..', import.meta.url));
export const BIN = join(REPO, 'bin/ribosome');

/** A minimal environment: nothing from the developer's shell (keys, retry settings) leaks in. */
export function cleanEnv(
  home: string,
  extra: Record<string, string | undefined> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    ...extra,
  })) {
    if (value !== undefined) env[key] = value;
  }
  return env;
}
