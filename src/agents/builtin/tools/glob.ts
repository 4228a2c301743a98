/** Glob: files matching a pattern, newest first, as paths relative to the agent root. */
import { glob, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { cachedLookup } from '../../../platform/confine/index.ts';
import { resolveInside } from './path-guard.ts';
import { defineTool, failure, ok } from './tool.ts';

const MAX_RESULTS = 100;

export const GlobInput = z.strictObject({
  pattern: z.string().min(1).describe('Glob pattern, e.g. "**/*.ts" or "src/*.{js,json}"'),
  path: z.string().optional().describe('Directory to search from (default: the agent root)'),
});

export const globTool = defineTool({
  name: 'Glob',
  description: `List files matching a glob pattern inside the agent root (and the read-only data directory linked in it), newest first (at most ${MAX_RESULTS}).`,
  input: GlobInput,
  async run(input, { root, readOnly }) {
    // The data directory's link leads out of the root, into a directory the agent may read.
    const base = await resolveInside(root, input.path ?? '.', { readOnly });
    if (!base.ok) return failure(base.message);
    const info = await stat(base.path).catch(() => undefined);
    if (!info?.isDirectory()) return failure(`${input.path} is not a directory.`);

    const found: { path: string; mtime: number }[] = [];
    // Hits share their directories: each is looked at once per call.
    const lookup = cachedLookup();
    for await (const entry of glob(input.pattern, { cwd: base.path, exclude: (name) => name === '.git' })) {
      // Patterns may climb out (`../*`) or pass through links: every hit goes through the guard.
      const hit = await resolveInside(root, join(base.path, entry), { lookup, readOnly });
      if (!hit.ok) continue;
      const hitInfo = await stat(hit.path).catch(() => undefined);
      if (hitInfo?.isFile()) found.push({ path: relative(root, hit.path), mtime: hitInfo.mtimeMs });
    }
    if (found.length === 0) return ok('No files found');
    found.sort((a, b) => b.mtime - a.mtime || a.path.localeCompare(b.path));
    const shown = found.slice(0, MAX_RESULTS).map((file) => file.path);
    if (found.length > MAX_RESULTS)
      shown.push(`(${found.length - MAX_RESULTS} more not shown; narrow the pattern)`);
    return ok(shown.join('\n'));
  },
});
