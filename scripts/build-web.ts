import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, type Metafile } from 'esbuild';

/**
 * Builds the web dashboard into dist-web/: app.js (src/clients/web/main.tsx and everything it imports,
 * minified), app.css and index.html. Nothing is fetched at run time: no CDN, no web fonts. React is
 * Preact here (preact/compat, a tenth of react-dom's size); the TUI's Ink stays on React. The build
 * fails when the bundle is over WEB_BUNDLE_BUDGET, naming its biggest inputs (docs/dashboard.md#size).
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist-web');

/** The most app.js and app.css may weigh together, minified. */
export const WEB_BUNDLE_BUDGET = 300 * 1024;

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Ribosome</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="app.css">
</head>
<body>
<div id="root"></div>
<script type="module" src="app.js"></script>
</body>
</html>
`;

const OPTIONS = {
  absWorkingDir: root,
  entryPoints: { app: 'src/clients/web/main.tsx' },
  outdir: out,
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022'],
  jsx: 'automatic',
  // react/jsx-runtime and react-dom/client follow (preact/compat/jsx-runtime, preact/compat/client).
  alias: { react: 'preact/compat', 'react-dom': 'preact/compat' },
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
} satisfies BuildOptions;

export type BundleReport = {
  bytes: number;
  /** What the bundle is made of: bytes by package (node_modules/<name>) or by source folder, biggest first. */
  inputs: { input: string; bytes: number }[];
};

/** Where an input's bytes are counted: its package, or its folder two levels under src/. */
function groupOf(input: string): string {
  const parts = input.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at >= 0) return parts.slice(at, at + (parts[at + 1]?.startsWith('@') ? 3 : 2)).join('/');
  return parts.slice(0, 3).join('/');
}

export function reportOf(metafile: Metafile): BundleReport {
  const groups = new Map<string, number>();
  let bytes = 0;
  for (const output of Object.values(metafile.outputs)) {
    bytes += output.bytes;
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs))
      groups.set(groupOf(input), (groups.get(groupOf(input)) ?? 0) + bytesInOutput);
  }
  const inputs = [...groups]
    .map(([input, n]) => ({ input, bytes: n }))
    .filter((i) => i.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
  return { bytes, inputs };
}

const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;

/** The report in words: the total against the budget, then the biggest inputs. */
export function describeReport(report: BundleReport, top = 8): string {
  const lines = report.inputs.slice(0, top).map((i) => `  ${kib(i.bytes).padStart(8)}  ${i.input}`);
  return [`${kib(report.bytes)} of ${kib(WEB_BUNDLE_BUDGET)}; biggest inputs:`, ...lines].join('\n');
}

/** Bundles the page in memory (nothing written): what the size guard measures. */
export async function bundleWeb(): Promise<BundleReport> {
  const result = await build({ ...OPTIONS, write: false });
  return reportOf(result.metafile);
}

export async function buildWeb(): Promise<{ ms: number; bytes: number; report: BundleReport }> {
  const started = performance.now();
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const result = await build(OPTIONS);
  await writeFile(path.join(out, 'index.html'), INDEX_HTML);
  const report = reportOf(result.metafile);
  return { ms: performance.now() - started, bytes: report.bytes, report };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { ms, report } = await buildWeb();
  process.stderr.write(`dist-web/ built in ${Math.round(ms)} ms: ${describeReport(report, 5)}\n`);
  if (report.bytes > WEB_BUNDLE_BUDGET) {
    process.stderr.write(
      `the dashboard's bundle is over its budget (${kib(WEB_BUNDLE_BUDGET)}): make it smaller (docs/dashboard.md#size)\n`,
    );
    process.exit(1);
  }
}
