/**
 * Where a path really leads, the way the kernel resolves it: every symlink on the way is followed,
 * dangling ones too (a write through a dangling link creates its target), and a `..` after a link
 * climbs from where the link led. Pure: the file system is asked only through `lookup`, so the rules
 * get table tests with a file system made of a map.
 */
import { dirname, isAbsolute, join, parse, relative, resolve, sep } from 'node:path';

/** What one path names, without following it (lstat). */
export type Entry = { kind: 'missing' } | { kind: 'link'; target: string } | { kind: 'present' };
export type Lookup = (path: string) => Promise<Entry>;

export type Refusal =
  /** The path as written leaves the root (`../x`, an absolute path elsewhere). */
  | { kind: 'outside'; path: string }
  /** `link` (relative to the root) is a symlink whose target, resolved, lies outside the root. */
  | { kind: 'link-out'; link: string; target: string }
  /** Following `link` took more symlinks than the kernel would (a loop, or a very long chain). */
  | { kind: 'link-loop'; link: string };

export type Confined =
  /** `path`: the path as written, made absolute; `real`: where it leads, every link followed. */
  { ok: true; path: string; real: string } | { ok: false; refusal: Refusal };

export type ConfineOptions = {
  /**
   * [followFinal=true] Follow a symlink in the last component too. False when the link itself is
   * what is acted on (moved, removed): then only the directories leading to it are resolved.
   */
  followFinal?: boolean;
  /**
   * [alsoInside=[]] Real directories outside `root` a symlink in it may lead into (the data
   * directory, which the agent reads through its link in the agent root).
   */
  alsoInside?: readonly string[];
};

/** Linux's limit on symlinks followed in one path resolution (MAXSYMLINKS). */
const MAX_LINKS = 40;

/** Whether `candidate` is `root` or below it; both absolute and normalized. Compares paths, not prefixes. */
export function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Resolves `path` (relative to `root`, or absolute) and refuses it when it, or any symlink on its way,
 * leads out of `root`. `root` must be a real path (no symlinks in it).
 */
export async function confine(
  root: string,
  path: string,
  lookup: Lookup,
  options: ConfineOptions = {},
): Promise<Confined> {
  const candidate = resolve(root, path);
  if (!isInside(root, candidate)) return { ok: false, refusal: { kind: 'outside', path } };
  const parts = relative(root, candidate)
    .split(sep)
    .filter((part) => part !== '');
  const last = options.followFinal === false ? parts.pop() : undefined;
  const budget = { links: MAX_LINKS };
  const allowed = [root, ...(options.alsoInside ?? [])];
  let real = root;
  for (const [index, part] of parts.entries()) {
    const next = join(real, part);
    const entry = await lookup(next);
    if (entry.kind === 'missing') {
      // Nothing below a missing directory exists: no link can hide there.
      real = join(next, ...parts.slice(index + 1));
      break;
    }
    if (entry.kind === 'present') {
      real = next;
      continue;
    }
    const link = relative(root, next);
    const target = await follow(real, entry.target, lookup, budget);
    if (target === undefined) return { ok: false, refusal: { kind: 'link-loop', link } };
    if (!allowed.some((dir) => isInside(dir, target))) {
      return { ok: false, refusal: { kind: 'link-out', link, target } };
    }
    real = target;
  }
  return { ok: true, path: candidate, real: last === undefined ? real : join(real, last) };
}

/**
 * Where the link text `text`, found in the real directory `from`, leads: an absolute path with every
 * link followed, or undefined when the link budget runs out. Components past a missing one are
 * joined as written.
 */
async function follow(
  from: string,
  text: string,
  lookup: Lookup,
  budget: { links: number },
): Promise<string | undefined> {
  if (--budget.links < 0) return undefined;
  let current = isAbsolute(text) ? parse(resolve(text)).root : from;
  let missing = false;
  for (const part of text.split(sep === '/' ? '/' : /[\\/]/)) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      // `current` has no links in it, so its parent is the real parent.
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    const entry: Entry = missing ? { kind: 'missing' } : await lookup(next);
    if (entry.kind === 'link') {
      const target = await follow(current, entry.target, lookup, budget);
      if (target === undefined) return undefined;
      current = target;
      continue;
    }
    if (entry.kind === 'missing') missing = true;
    current = next;
  }
  return current;
}

/** A refusal as one line a person (or a model) can act on. */
export function describeRefusal(refusal: Refusal, root: string, rootName = 'the agent root'): string {
  switch (refusal.kind) {
    case 'outside':
      return `refused: ${refusal.path} is outside ${rootName} ${root}`;
    case 'link-out':
      return `refused: ${refusal.link} is a symlink to ${refusal.target}, outside ${rootName} ${root}`;
    case 'link-loop':
      return `refused: ${refusal.link}: too many levels of symbolic links`;
  }
}
