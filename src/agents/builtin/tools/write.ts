/** Write: create or overwrite a file, making parent directories as needed. */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { writeText } from './file-io.ts';
import { refuseReadOnly, resolveInside } from './path-guard.ts';
import { defineTool, failure, ok } from './tool.ts';

export const WriteInput = z.strictObject({
  file_path: z.string().min(1).describe('Path of the file, relative to the agent root or absolute inside it'),
  content: z.string().describe('The complete new content of the file'),
});

export const writeTool = defineTool({
  name: 'Write',
  description:
    'Write a file inside the agent root, replacing it if it exists. Prefer Edit for small changes.',
  input: WriteInput,
  async run(input, { root, readOnly }) {
    const target = await resolveInside(root, input.file_path, { readOnly });
    if (!target.ok) return failure(target.message);
    const writable = refuseReadOnly(target, input.file_path, readOnly);
    if (!writable.ok) return failure(writable.message);
    await mkdir(dirname(target.real), { recursive: true });
    const written = await writeText(target.real, input.file_path, input.content);
    if (!written.ok) return failure(written.message);
    return ok(
      written.created
        ? `File created successfully at: ${input.file_path}`
        : `The file ${input.file_path} has been updated successfully.`,
    );
  },
});
