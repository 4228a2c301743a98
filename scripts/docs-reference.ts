import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProgram } from '../src/clients/cli/program.ts';
import { referencePages } from './reference/pages.ts';

/** `npm run docs`: rewrites docs/reference/ from the commander program, the zod schemas and the environment registry. */

export const REFERENCE_DIR = fileURLToPath(new URL('../docs/reference/', import.meta.url));

/** The pages as this checkout generates them. */
export function currentPages(): Record<string, string> {
  return referencePages(buildProgram(), process.cwd());
}

if (import.meta.main) {
  const pages = currentPages();
  await mkdir(REFERENCE_DIR, { recursive: true });
  for (const [name, text] of Object.entries(pages)) await writeFile(join(REFERENCE_DIR, name), text);
  console.log(`wrote ${Object.keys(pages).length} pages to docs/reference/`);
}
