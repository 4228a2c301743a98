import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The import graph of src/: which file imports which, read from the import and export statements
 * (type-only ones too: a type circle is a circle for a reader). Used by the layer check
 * (test/architecture) and printed by `node scripts/import-graph.ts` for the before/after figures.
 */
export interface ImportEdge {
  from: string;
  to: string;
}

const SPECIFIER =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;

export function sourceFiles(root: string, dir = 'src'): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(root, rel));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out.sort();
}

export function importEdges(root: string): ImportEdge[] {
  const files = new Set(sourceFiles(root));
  const edges: ImportEdge[] = [];
  for (const from of files) {
    const text = readFileSync(path.join(root, from), 'utf8');
    for (const match of text.matchAll(SPECIFIER)) {
      const spec = match[1] ?? match[2] ?? match[3];
      if (!spec?.startsWith('.')) continue;
      const to = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
      const candidates = [
        to,
        to.replace(/\.js$/, '.ts'),
        to.replace(/\.js$/, '.tsx'),
        `${to}.ts`,
        `${to}/index.ts`,
      ];
      const found = candidates.find((c) => files.has(c));
      if (found) edges.push({ from, to: found });
    }
  }
  return edges;
}

/** The packages each file imports (bare specifiers; `node:` built-ins left out): `react`, `ink`, `@scope/name`. */
export function packageImports(root: string): { from: string; pkg: string }[] {
  const out: { from: string; pkg: string }[] = [];
  for (const from of sourceFiles(root)) {
    const text = readFileSync(path.join(root, from), 'utf8');
    for (const match of text.matchAll(SPECIFIER)) {
      const spec = match[1] ?? match[2] ?? match[3];
      if (!spec || spec.startsWith('.') || spec.startsWith('node:')) continue;
      const parts = spec.split('/');
      out.push({ from, pkg: (spec.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/') });
    }
  }
  return out;
}

/** Strongly connected components with more than one member (Tarjan). */
export function circles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** Longest chain of folder-to-folder imports (folders in one circle count as one floor). */
export function floors(edges: readonly ImportEdge[], folderOf: (file: string) => string): number {
  const folderEdges = edges
    .map((e) => ({ from: folderOf(e.from), to: folderOf(e.to) }))
    .filter((e) => e.from !== e.to);
  const sccs = circles(folderEdges);
  const rep = new Map<string, string>();
  for (const scc of sccs) for (const f of scc) rep.set(f, scc[0]!);
  const r = (f: string) => rep.get(f) ?? f;
  const next = new Map<string, Set<string>>();
  for (const e of folderEdges) {
    if (r(e.from) === r(e.to)) continue;
    next.set(r(e.from), (next.get(r(e.from)) ?? new Set()).add(r(e.to)));
  }
  const depth = new Map<string, number>();
  const d = (f: string): number => {
    const known = depth.get(f);
    if (known !== undefined) return known;
    let best = 1;
    for (const t of next.get(f) ?? []) best = Math.max(best, 1 + d(t));
    depth.set(f, best);
    return best;
  };
  let max = 0;
  for (const f of new Set(folderEdges.flatMap((e) => [r(e.from), r(e.to)]))) max = Math.max(max, d(f));
  return max;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
  const edges = importEdges(root);
  const folderOf = (f: string) =>
    f
      .split('/')
      .slice(0, 2)
      .join('/')
      .replace(/\.tsx?$/, '');
  const files = sourceFiles(root);
  const folders = new Set(files.map(folderOf));
  console.log(`files ${files.length}, top-level folders ${folders.size}, floors ${floors(edges, folderOf)}`);
  const c = circles(edges);
  console.log(`file circles ${c.length}`);
  for (const scc of c) console.log(`  ${scc.join(' <-> ')}`);
  const sizes = files
    .map((f) => ({ f, n: readFileSync(path.join(root, f), 'utf8').split('\n').length - 1 }))
    .sort((a, b) => b.n - a.n);
  console.log('largest files:');
  for (const { f, n } of sizes.slice(0, 8)) console.log(`  ${n} ${f}`);
}
