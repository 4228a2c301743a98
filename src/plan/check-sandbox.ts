import { isAbsolute, posix } from 'node:path';
import type { PathSegment, ProblemDraft } from './problems.ts';
import type { SalvagedPlan } from './salvage.ts';
import { resolveSandboxPath, within } from './sandbox-paths.ts';
import { sandboxSettingsOf } from './sandbox-resolve.ts';
import type { SandboxSetting } from './sandbox-schema.ts';

/** The lists of paths a sandbox setting may extend. */
const LISTS = ['allowWrite', 'readOnly', 'hide'] as const;
type ListName = (typeof LISTS)[number];

/**
 * What is known where the paths are checked: the user's home always; the execution's directories
 * once a run places its execution (`ribosome validate` knows neither).
 */
export type SandboxPlace = { home: string; executionDir?: string; agentRoot?: string };

/** One path of a list, where it was written. */
type Entry = { list: ListName; path: string; at: PathSegment[]; own: boolean };

/**
 * The problems of `sandbox` path lists (docs/agents.md#the-sandbox): a path not absolute, `~/...` or
 * inside the agent root; `/` or the home (or what holds it) made writable; the execution's
 * `.ribosome` (or what holds it) made writable or read-only; the agent root hidden; one path in two
 * lists. `inherited` (the plan's, for a codon) joins the two-lists check only. Pure.
 */
export function checkSandboxPaths(
  setting: SandboxSetting | undefined,
  at: PathSegment[],
  place: SandboxPlace,
  inherited?: SandboxSetting,
): ProblemDraft[] {
  const own = entriesOf(setting, at, true);
  const drafts = own.flatMap((entry) => entryProblems(entry, place));
  const bad = new Set(drafts.map((d) => d.path.join('.')));
  const all = [...entriesOf(inherited, [], false), ...own].filter((e) => !bad.has(e.at.join('.')));
  const seen = new Map<string, Entry>();
  for (const entry of all) {
    const key = keyOf(entry.path, place);
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, entry);
      continue;
    }
    if (first.list === entry.list || !entry.own) continue;
    drafts.push({
      code: 'SANDBOX_PATH_TWICE',
      path: entry.at,
      message: `${entry.path} is in sandbox.${first.list} and sandbox.${entry.list}${first.own ? '' : " (the plan's)"}.`,
      hint: 'A path is writable, read-only or hidden: keep it in one list.',
    });
  }
  return drafts;
}

function entriesOf(setting: SandboxSetting | undefined, at: PathSegment[], own: boolean): Entry[] {
  const settings = sandboxSettingsOf(setting);
  return LISTS.flatMap((list) =>
    (settings[list] ?? []).map((path, i) => ({ list, path, at: [...at, list, i], own })),
  );
}

/** The same path for the two-lists check: resolved when the agent root is known, else normalized as written. */
function keyOf(path: string, place: SandboxPlace): string {
  if (place.agentRoot) return resolveSandboxPath(path, { home: place.home, agentRoot: place.agentRoot });
  return resolveSandboxPath(path, { home: place.home, agentRoot: '' }) || '.';
}

function entryProblems(entry: Entry, place: SandboxPlace): ProblemDraft[] {
  const { list, path, at } = entry;
  const problem = (code: ProblemDraft['code'], message: string, hint: string): ProblemDraft[] => [
    { code, path: at, message, hint },
  ];
  const relative = !isAbsolute(path) && path !== '~' && !path.startsWith('~/');
  const normalized = relative ? posix.normalize(path) : '';
  if (path.startsWith('~') && relative)
    return problem(
      'SANDBOX_PATH_INVALID',
      `sandbox.${list} path ${path} names another user's home.`,
      'Write an absolute path, ~/... (your home), or a path relative to the agent root.',
    );
  if (relative && (normalized === '..' || normalized.startsWith('../')))
    return problem(
      'SANDBOX_PATH_INVALID',
      `sandbox.${list} path ${path} leaves the agent root.`,
      'A relative path stays inside the agent root; write a path outside it absolute or as ~/....',
    );
  const resolved = resolveSandboxPath(path, { home: place.home, agentRoot: place.agentRoot ?? '/' });
  const home = posix.normalize(place.home);
  if (list === 'allowWrite' && !relative && within(home, resolved))
    return problem(
      'SANDBOX_WRITE_TOO_WIDE',
      `sandbox.allowWrite ${path} makes ${resolved === '/' ? 'the whole file system' : 'your home'} writable.`,
      'Name the directories the agent needs to write, such as ~/.cache/pip.',
    );
  if (list !== 'hide' && holdsHistory(path, resolved, place))
    return problem(
      'SANDBOX_PATH_IN_HISTORY',
      `sandbox.${list} ${path} reaches the execution's .ribosome (its journal and checkpoints), which stays hidden.`,
      "Leave the execution's .ribosome out; name the directories the agent needs instead.",
    );
  if (
    list === 'hide' &&
    (normalized === '.' || (place.agentRoot && within(place.agentRoot, resolved)) || resolved === '/')
  )
    return problem(
      'SANDBOX_HIDES_AGENT_ROOT',
      `sandbox.hide ${path} hides the agent root, where the agent works.`,
      'Hide directories inside or beside it, not the agent root itself.',
    );
  return [];
}

/** A path that is, lies in or holds the execution's `.ribosome` (any `.ribosome` while the execution is unknown). */
function holdsHistory(path: string, resolved: string, place: SandboxPlace): boolean {
  if (path.split('/').includes('.ribosome')) return true;
  if (!place.executionDir) return false;
  const history = posix.join(place.executionDir, '.ribosome');
  return within(resolved, history) || within(history, resolved);
}

/** The plan's `sandbox` paths and every codon's (with the plan's, for the two-lists check). Pure. */
export function planSandboxProblems(plan: SalvagedPlan, place: SandboxPlace): ProblemDraft[] {
  const codons = plan.items.flatMap((item) => (item.kind === 'loop' ? item.codons : [item]));
  return [
    ...checkSandboxPaths(plan.sandbox, ['sandbox'], place),
    ...codons.flatMap((entry) =>
      entry.kind === 'codon' && entry.codon.sandbox !== undefined
        ? checkSandboxPaths(entry.codon.sandbox, [...entry.path, 'sandbox'], place, plan.sandbox)
        : [],
    ),
  ];
}
