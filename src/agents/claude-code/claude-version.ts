import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

const PKG = '@anthropic-ai/claude-code';
const known = new Map<string, string | undefined>();

/**
 * The version of the Claude Code binary `binary` (`2.1.197`), or undefined when it cannot be told:
 * its package's manifest when it is a package's binary (no process started), else `--version` run
 * once. Remembered per binary for the server's life.
 */
export function claudeVersion(binary: string): string | undefined {
  if (known.has(binary)) return known.get(binary);
  const version = manifestVersion(binary) ?? reportedVersion(binary);
  known.set(binary, version);
  return version;
}

/** The version in the manifest of the Claude Code package holding `binary`, if it is in one. */
function manifestVersion(binary: string): string | undefined {
  let dir: string;
  try {
    dir = dirname(realpathSync(binary));
  } catch {
    return undefined;
  }
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === PKG && typeof manifest.version === 'string') return manifest.version;
      return undefined;
    } catch {
      // No manifest here: look one directory up.
    }
  }
  return undefined;
}

/** What `binary --version` says (`2.1.197 (Claude Code)`), its number. */
function reportedVersion(binary: string): string | undefined {
  const run = spawnSync(binary, ['--version'], {
    encoding: 'utf8',
    timeout: 15_000,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return /^(\d+\.\d+\.\d+)/.exec(run.stdout?.trim() ?? '')?.[1];
}
