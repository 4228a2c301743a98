/** Edit: replace an exact string in a file; it must match once unless replace_all is set. */
import { z } from 'zod';
import { readText, writeText } from './file-io.ts';
import { refuseReadOnly, resolveInside } from './path-guard.ts';
import { defineTool, failure, ok } from './tool.ts';

export const EditInput = z.strictObject({
  file_path: z.string().min(1).describe('Path of the file, relative to the agent root or absolute inside it'),
  old_string: z.string().min(1).describe('Exact text to replace (whitespace included)'),
  new_string: z.string().describe('Text to put in its place'),
  replace_all: z.boolean().default(false).describe('Replace every occurrence instead of requiring one'),
});

export type EditResult = { ok: true; content: string; count: number } | { ok: false; message: string };

/** Pure core of Edit. */
export function applyEdit(
  content: string,
  oldString: string,
  newString: string,
  replaceAll: boolean,
): EditResult {
  if (oldString === newString)
    return { ok: false, message: 'old_string and new_string are the same; nothing to change.' };
  const count = content.split(oldString).length - 1;
  if (count === 0) return { ok: false, message: 'old_string was not found in the file.' };
  if (count > 1 && !replaceAll) {
    return {
      ok: false,
      message: `old_string matches ${count} times; give more surrounding context to make it unique, or set replace_all.`,
    };
  }
  // split/join, not String.replace: `$&` and friends in new_string must stay literal.
  return { ok: true, content: content.split(oldString).join(newString), count };
}

export const editTool = defineTool({
  name: 'Edit',
  description:
    'Replace old_string with new_string in a file inside the agent root. old_string must occur exactly ' +
    'once unless replace_all is true.',
  input: EditInput,
  async run(input, { root, readOnly }) {
    const target = await resolveInside(root, input.file_path, { readOnly });
    if (!target.ok) return failure(target.message);
    const writable = refuseReadOnly(target, input.file_path, readOnly);
    if (!writable.ok) return failure(writable.message);
    const read = await readText(target.real, input.file_path);
    if (!read.ok) return failure(read.message);
    const edited = applyEdit(read.text, input.old_string, input.new_string, input.replace_all);
    if (!edited.ok) return failure(edited.message);
    const written = await writeText(target.real, input.file_path, edited.content, { create: false });
    if (!written.ok) return failure(written.message);
    const times = edited.count === 1 ? '' : ` (${edited.count} replacements)`;
    return ok(`The file ${input.file_path} has been updated successfully${times}.`);
  },
});
