/**
 * `npm pack` (and `npm publish`) ship package.json without its `prepare` script: a clone's `npm ci`
 * builds the dashboard with it, but npm never runs it for a package installed from a tarball, and
 * still warns about it there ("install scripts not yet covered by allowScripts"). `strip` (at
 * prepack) keeps the file as it was beside node_modules and writes it without `prepare`; `restore`
 * (at postpack) puts it back, byte for byte. A pack that failed between the two is repaired by the
 * next one's postpack.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const manifest = path.join(root, 'package.json');
const kept = path.join(root, 'node_modules', '.package.json.before-pack');

const step = process.argv[2];
if (step === 'strip') {
  const text = readFileSync(manifest, 'utf8');
  const pkg = JSON.parse(text) as { scripts?: Record<string, string> };
  if (pkg.scripts?.prepare !== undefined) {
    writeFileSync(kept, text);
    delete pkg.scripts.prepare;
    writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
  }
} else if (step === 'restore') {
  if (existsSync(kept)) renameSync(kept, manifest);
} else {
  process.stderr.write('usage: node scripts/pack-manifest.ts strip|restore\n');
  process.exitCode = 2;
}
