import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What to do when Claude Code is missing; doctor and the claude-code agent both say it. */
export const CLAUDE_CODE_INSTALL =
  'install it beside Ribosome (npm install @anthropic-ai/claude-code), put `claude` on PATH, or set RIBOSOME_CLAUDE_BIN; plans with `agent: builtin` need none';

/**
 * The Claude Code CLI: RIBOSOME_CLAUDE_BIN, else the one of an installed @anthropic-ai/claude-code
 * package (a clone's devDependency, or installed beside the ribosome package: it is an optional peer),
 * else `claude` on PATH.
 */
export function claudeBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env.RIBOSOME_CLAUDE_BIN || installedClaude() || 'claude';
}

function installedClaude(): string | undefined {
  let manifest: string;
  try {
    manifest = fileURLToPath(import.meta.resolve('@anthropic-ai/claude-code/package.json'));
  } catch {
    return undefined;
  }
  try {
    const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: string | Record<string, string> };
    const relative = typeof bin === 'string' ? bin : bin?.claude;
    const path = relative ? join(dirname(manifest), relative) : undefined;
    return path && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}
