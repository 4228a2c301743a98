/** Grep: search file contents with a JavaScript regular expression, inside the agent root. */
import type { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, matchesGlob, relative } from 'node:path';
import { z } from 'zod';
import { createOutputCap } from './output-cap.ts';
import { isInside, resolveInside } from './path-guard.ts';
import { defineTool, failure, ok } from './tool.ts';

const SKIPPED_DIRS = new Set(['.git', 'node_modules']);
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const OUTPUT_LIMIT = 30_000;

export const GrepInput = z.strictObject({
  pattern: z.string().min(1).describe('JavaScript regular expression to search for'),
  path: z.string().optional().describe('File or directory to search (default: the agent root)'),
  glob: z
    .string()
    .optional()
    .describe('Only files whose path (or name, for patterns without "/") matches, e.g. "*.ts"'),
  output_mode: z
    .enum(['content', 'files_with_matches', 'count'])
    .default('files_with_matches')
    .describe(
      'content: matching lines as path:line:text; files_with_matches (default): paths; count: path:count',
    ),
  '-i': z.boolean().default(false).describe('Case-insensitive search'),
});

/** Pure: does a file (path relative to the search base) pass the glob filter? */
export function passesGlob(relativePath: string, pattern: string | undefined): boolean {
  if (pattern === undefined) return true;
  return matchesGlob(pattern.includes('/') ? relativePath : basename(relativePath), pattern);
}

async function* walk(dir: string, root: string): AsyncGenerator<string> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const full = join(dir, entry.name);
    // Symlinks are neither followed nor read: they could lead out of the root.
    if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) yield* walk(full, root);
    else if (entry.isFile() && isInside(root, full)) yield full;
  }
}

export const grepTool = defineTool({
  name: 'Grep',
  description:
    'Search file contents inside the agent root with a regular expression (JavaScript syntax). ' +
    'Skips .git, node_modules, binary files and files over 2 MB.',
  input: GrepInput,
  async run(input, { root, readOnly }) {
    let regex: RegExp;
    try {
      regex = new RegExp(input.pattern, input['-i'] ? 'i' : '');
    } catch (err) {
      return failure(`Invalid regular expression: ${err instanceof Error ? err.message : String(err)}`);
    }
    // The data directory's link leads out of the root, into a directory the agent may read.
    const base = await resolveInside(root, input.path ?? '.', { readOnly });
    if (!base.ok) return failure(base.message);
    const info = await stat(base.path).catch(() => undefined);
    if (!info) return failure(`Path does not exist: ${input.path}`);
    const files = info.isDirectory() ? walk(base.path, root) : single(base.path);

    const out = createOutputCap(OUTPUT_LIMIT);
    let matchedFiles = 0;
    for await (const file of files) {
      if (info.isDirectory() && !passesGlob(relative(base.path, file), input.glob)) continue;
      const fileInfo = await stat(file).catch(() => undefined);
      // Regular files only: reading a FIFO would block the agent.
      if (!fileInfo?.isFile() || fileInfo.size > MAX_FILE_BYTES) continue;
      const text = await readFile(file, 'utf8').catch(() => undefined);
      if (text === undefined || text.includes('\0')) continue;
      const shownPath = relative(root, file);
      const lines = text.split(/\r?\n/);
      let count = 0;
      lines.forEach((line, index) => {
        if (!regex.test(line)) return;
        count++;
        if (input.output_mode === 'content') out.add(`${shownPath}:${index + 1}:${line}\n`);
      });
      if (count === 0) continue;
      matchedFiles++;
      if (input.output_mode === 'files_with_matches') out.add(`${shownPath}\n`);
      if (input.output_mode === 'count') out.add(`${shownPath}:${count}\n`);
    }
    if (matchedFiles === 0) return ok('No matches found');
    return ok(out.text().trimEnd());
  },
});

async function* single(file: string): AsyncGenerator<string> {
  yield file;
}
