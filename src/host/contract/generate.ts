import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contractFiles } from './schema-files.ts';

/** `npm run schema`: rewrites schema/ from the zod schemas, and removes what is no longer generated. */

export const SCHEMA_DIR = fileURLToPath(new URL('../../../schema/', import.meta.url));

/** Every file under `dir`, relative to it. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length).replace(/^\//, ''))
    .sort();
}

if (import.meta.main) {
  const files = contractFiles();
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(SCHEMA_DIR, name)), { recursive: true });
    await writeFile(join(SCHEMA_DIR, name), text);
  }
  for (const name of await listFiles(SCHEMA_DIR)) {
    if (!Object.hasOwn(files, name)) {
      await rm(join(SCHEMA_DIR, name));
      console.log(`removed schema/${name}`);
    }
  }
  console.log(`wrote ${Object.keys(files).length} files to schema/`);
}
