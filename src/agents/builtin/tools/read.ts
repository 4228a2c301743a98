/** Read: a text file's lines, numbered like `cat -n`, optionally a window of them. */
import { z } from 'zod';
import { readText } from './file-io.ts';
import { resolveInside } from './path-guard.ts';
import { defineTool, failure, ok } from './tool.ts';

const DEFAULT_LIMIT = 2000;
const MAX_LINE = 2000;

export const ReadInput = z.strictObject({
  file_path: z.string().min(1).describe('Path of the file, relative to the agent root or absolute inside it'),
  offset: z.number().int().positive().optional().describe('1-based line to start from'),
  limit: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(`Number of lines to read (default ${DEFAULT_LIMIT})`),
});

/** Pure: the numbered window of `text`. */
export function numberLines(text: string, offset = 1, limit = DEFAULT_LIMIT): string {
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop(); // a final newline does not start another line
  return lines
    .slice(offset - 1, offset - 1 + limit)
    .map((line, i) => {
      const shown = line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}... [line truncated]` : line;
      return `${String(offset + i).padStart(6)}\t${shown}`;
    })
    .join('\n');
}

export const readTool = defineTool({
  name: 'Read',
  description:
    'Read a text file inside the agent root. Output lines are numbered (cat -n style). ' +
    `Use offset and limit for long files; at most ${DEFAULT_LIMIT} lines are returned by default.`,
  input: ReadInput,
  async run(input, { root, readOnly }) {
    const target = await resolveInside(root, input.file_path, { readOnly });
    if (!target.ok) return failure(target.message);
    const read = await readText(target.real, input.file_path);
    if (!read.ok) return failure(read.message);
    const { text } = read;
    if (text === '') return ok('(the file is empty)');
    const window = numberLines(text, input.offset, input.limit);
    return ok(window === '' ? `(no lines at offset ${input.offset}; the file is shorter)` : window);
  },
});
