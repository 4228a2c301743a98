import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchor } from '../../scripts/reference/markdown.ts';
import { anchorsOf, linksOf } from './markdown.ts';

/**
 * The docs hold together: code cites a docs page and anchor that exist, and every link between the
 * pages (README.md and CONTRIBUTING.md included) leads to a page and a heading that are there.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const CODE_DIRS = ['src', 'test', 'bench', 'scripts', '.ci'];
/** Examples too must not cite README sections (they ship); their docs/ paths are of the user's own repository. */
const README_CITING_DIRS = [...CODE_DIRS, 'examples'];
const TEXT = /(\.(tsx?|m?js|md|ya?ml|css|html)|\/run)$/;

function filesUnder(dir: string, keep: RegExp): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => keep.test(f) && statSync(join(ROOT, f)).isFile())
    .sort();
}

const PAGES = ['README.md', 'CONTRIBUTING.md', ...filesUnder('docs', /\.md$/)];
const anchorCache = new Map<string, Set<string>>();
const anchors = (page: string) => {
  const known = anchorCache.get(page) ?? anchorsOf(readFileSync(join(ROOT, page), 'utf8'));
  anchorCache.set(page, known);
  return known;
};

/** Why `page#anchor` (a path from the repository root) leads nowhere, or undefined when it is there. */
function broken(page: string, anchor: string | undefined): string | undefined {
  if (relative(ROOT, resolve(ROOT, page)).startsWith('..')) return 'outside the repository';
  if (!existsSync(join(ROOT, page))) return 'no such file';
  if (anchor === undefined) return undefined;
  if (!page.endsWith('.md')) return 'an anchor into a file that is not Markdown';
  return anchors(page).has(anchor) ? undefined : `no heading with the anchor #${anchor}`;
}

/**
 * A citation is `docs/<page>.md` or `docs/<page>.md#<anchor>` standing on its own in a comment or a
 * description; a path in a string literal (`'docs/style.md'`, a test's fixture) is not one.
 */
const CITATION = /(?<![\w/.'"`-])(docs\/[\w/-]+\.md)(?:#([\w-]+))?/g;

describe('GitHub anchors', () => {
  it('are the heading lower-cased, punctuation dropped, spaces as dashes; repeats numbered', () => {
    expect(anchor('`ribosome run <plan-file>`')).toBe('ribosome-run-plan-file');
    expect(anchor('Faults: full or failing disks')).toBe('faults-full-or-failing-disks');
    expect(anchor('Reading an execution: `ribosome runs`, `journal export`, `log`')).toBe(
      'reading-an-execution-ribosome-runs-journal-export-log',
    );
    expect([...anchorsOf('# A\n## Keys\n```\n## not a heading\n```\n### Keys\n')]).toEqual([
      'a',
      'keys',
      'keys-1',
    ]);
  });
});

describe('citations of the docs in code', () => {
  const cited = CODE_DIRS.flatMap((dir) => filesUnder(dir, TEXT)).flatMap((file) =>
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .flatMap((line, i) =>
        [...line.matchAll(CITATION)].map((m) => ({ at: `${file}:${i + 1}`, page: m[1]!, anchor: m[2] })),
      ),
  );

  it('name a page and a heading that exist', () => {
    expect(cited.length).toBeGreaterThan(50);
    const dead = cited.flatMap((c) => {
      const why = broken(c.page, c.anchor);
      return why ? [`${c.at}: ${c.page}${c.anchor ? `#${c.anchor}` : ''}: ${why}`] : [];
    });
    expect(dead).toEqual([]);
  });

  it('cite docs/, never a section of the README', () => {
    const old = README_CITING_DIRS.flatMap((dir) => filesUnder(dir, TEXT)).flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          /README(?:'s)? "|README's \w+ section|\(README\)/.test(line) ? [`${file}:${i + 1}`] : [],
        ),
    );
    expect(old).toEqual([]);
  });
});

describe('links between the docs', () => {
  it('are relative and lead to a file and a heading that exist', () => {
    expect(PAGES).toContain('docs/README.md');
    const dead = PAGES.flatMap((page) =>
      linksOf(readFileSync(join(ROOT, page), 'utf8')).flatMap(({ target, line }) => {
        const at = `${page}:${line}: ${target}`;
        if (/^[a-z][a-z+.-]*:/i.test(target)) return [`${at}: links outside the repository`];
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? page : relative(ROOT, resolve(ROOT, dirname(page), path));
        const why = broken(file, anchor);
        return why ? [`${at}: ${why}`] : [];
      }),
    );
    expect(dead).toEqual([]);
  });

  it('reach every docs page from docs/README.md', () => {
    const index = linksOf(readFileSync(join(ROOT, 'docs/README.md'), 'utf8')).map(
      ({ target }) => `docs/${target.split('#')[0]}`,
    );
    expect(
      PAGES.filter((p) => p.startsWith('docs/') && p !== 'docs/README.md' && !index.includes(p)),
    ).toEqual([]);
  });
});

describe('the README', () => {
  it('opens with the two commands CI runs, before any other', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
    expect(blocks.slice(0, 2)).toEqual(['npm ci && npm start', 'npm test']);
    expect(readme.indexOf('```')).toBe(readme.indexOf('```sh\nnpm ci && npm start\n```'));
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8').trimEnd().split('\n');
    expect(ci.slice(-2)).toEqual(blocks.slice(0, 2));
  });
});
