import { z } from 'zod';
import type { PlanProblem } from './problems.ts';
import { parseSource } from './source-file.ts';
import { issuesToDrafts } from './zod-issues.ts';

/**
 * Prompt files may open with YAML front matter between `---` lines; it describes the prompt and is
 * not sent to the agent. Keys other than these are left alone, since prompt files are often shared
 * with other tools that keep their own keys there.
 */
export const PromptMetadata = z
  .object({
    name: z.string().optional(),
    description: z.string().optional(),
    tags: z.array(z.string()).optional(),
    version: z.string().optional(),
    author: z.string().optional(),
  })
  .describe('Front matter of a prompt file.');
export type PromptMetadata = z.infer<typeof PromptMetadata>;

export type PromptFileContent =
  | { ok: true; body: string; metadata?: PromptMetadata }
  | { ok: false; problems: PlanProblem[] };

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m;

/** Splits a prompt file into its front matter (parsed) and its body. `file` is used in problems only. */
export function parsePromptFile(text: string, file: string): PromptFileContent {
  const opening = OPENING.exec(text);
  if (opening === null) return { ok: true, body: text.replace(/^\uFEFF/, '') };
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (closing === null) {
    const problem: PlanProblem = {
      code: 'FRONT_MATTER_INVALID',
      severity: 'error',
      file,
      path: '',
      line: 1,
      column: 1,
      message: 'The front matter opened by "---" on line 1 is never closed.',
      hint: 'Close it with a "---" line, or start the prompt with something other than "---".',
    };
    return { ok: false, problems: [problem] };
  }
  const body = rest.slice(closing.index + closing[0].length).replace(/^(?:[ \t]*\r?\n)+/, '');
  const parsed = parseSource(file, rest.slice(0, closing.index), 'front matter', {
    lineOffset: 1,
    stringsOnly: true,
  });
  if (!parsed.ok) {
    // An empty front matter block is allowed: it just carries no metadata.
    if (parsed.problems.every((p) => p.code === 'EMPTY_FILE')) return { ok: true, body };
    return { ok: false, problems: parsed.problems };
  }
  const metadata = PromptMetadata.safeParse(parsed.source.data);
  if (!metadata.success) {
    const drafts = issuesToDrafts(metadata.error.issues, PromptMetadata, parsed.source.data);
    return {
      ok: false,
      problems: drafts.map((d) => {
        const problem = parsed.source.locate(d);
        if (d.path.length > 0) return problem;
        return {
          ...problem,
          code: 'FRONT_MATTER_INVALID',
          line: 2,
          column: 1,
          message: 'The front matter must be a mapping of fields.',
          hint: 'Write `key: value` lines such as `name: ...`, `tags: [a, b]`.',
        };
      }),
    };
  }
  return { ok: true, body, metadata: metadata.data };
}
