import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where a `claude login` of the user keeps its credential, if one is there: the file in
 * $CLAUDE_CONFIG_DIR, else in ~/.claude (`HOME` of `env`). A login kept elsewhere (the macOS
 * keychain) is not seen. Only whether the file exists is looked at, never its contents.
 */
export function claudeLoginFile(env: NodeJS.ProcessEnv): string | undefined {
  const dirs = [env.CLAUDE_CONFIG_DIR, join(env.HOME || homedir(), '.claude')];
  for (const dir of dirs) {
    if (!dir) continue;
    const file = join(dir, '.credentials.json');
    if (existsSync(file)) return file;
  }
  return undefined;
}
