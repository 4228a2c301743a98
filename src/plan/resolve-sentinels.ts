import { resolve } from 'node:path';
import { checkPromptTemplates } from './check-sentinel.ts';
import { loadSentinelFile, readTemplates, type SentinelFileLoad, toLoadedSentinel } from './load-sentinel.ts';
import type { CodonSentinel } from './loaded-plan.ts';
import type { PathSegment, PlanProblem, ProblemDraft } from './problems.ts';
import type {
  CodonSentinelRef,
  NamedSentinel,
  SentinelDefinition,
  SentinelFileRef,
} from './sentinel-schema.ts';

/**
 * Resolves the plan's sentinels (the named map, then each codon's references) into CodonSentinels.
 * Each file loads once however many codons use it, so its problems are reported once.
 */
export type SentinelResolver = ReturnType<typeof createSentinelResolver>;

export function createSentinelResolver(planDir: string) {
  const files = new Map<string, Promise<SentinelFileLoad>>();
  const named = new Map<string, CodonSentinel>();
  /** Problems to place in the plan file. */
  const drafts: ProblemDraft[] = [];
  /** Problems already placed in other files (sentinel files, templates they name). */
  const problems: PlanProblem[] = [];

  const loadOnce = (file: string): Promise<SentinelFileLoad> => {
    let load = files.get(file);
    if (load === undefined) {
      load = loadSentinelFile(file).then((result) => {
        problems.push(...result.problems);
        return result;
      });
      files.set(file, load);
    }
    return load;
  };

  /**
   * Undefined when the file cannot be loaded: an error of the plan, as a mistake in an inline sentinel is
   * (a sentinel may be a guard, so a typo must not mean a run without it).
   */
  async function fromFile(
    ref: SentinelFileRef,
    path: PathSegment[],
    id?: string,
  ): Promise<CodonSentinel | undefined> {
    const file = resolve(planDir, ref.file);
    const name = id ?? ref.file;
    const load = await loadOnce(file);
    if (!load.ok) {
      const { code, message } = load.loadError;
      const what =
        code === 'SENTINEL_FILE_NOT_FOUND'
          ? `Sentinel file not found: ${file}`
          : code === 'SENTINEL_FILE_UNREADABLE'
            ? `Sentinel file cannot be read: ${file} (${message.replace(/\.$/, '')})`
            : `Sentinel file cannot be loaded: ${file}`;
      drafts.push({
        code: code === 'SENTINEL_FILE_NOT_FOUND' ? code : 'SENTINEL_FILE_INVALID',
        path: [...path, 'file'],
        message: `${what}; the codons using it cannot run without it.`,
        hint:
          code === 'SENTINEL_FILE_INVALID'
            ? `Fix the problems reported in ${file}.`
            : code === 'SENTINEL_FILE_UNREADABLE'
              ? 'Make the file readable, or fix the path (it is relative to the plan file).'
              : 'Fix the path (it is relative to the plan file) or create the file.',
      });
      return undefined;
    }
    if (id !== undefined && load.sentinel.id !== id) {
      drafts.push({
        code: 'SENTINEL_ID_MISMATCH',
        severity: 'warning',
        path: [...path, 'file'],
        message: `The sentinel file says its id is "${load.sentinel.id}", but the plan names it "${id}"; "${id}" is used.`,
        hint: `Rename the key or the id in ${file} so they agree.`,
      });
      return { status: 'loaded', ref: name, sentinel: { ...load.sentinel, id } };
    }
    return { status: 'loaded', ref: name, sentinel: load.sentinel };
  }

  async function inline(
    definition: SentinelDefinition,
    path: PathSegment[],
  ): Promise<CodonSentinel | undefined> {
    const templates = await readTemplates(definition, planDir, path);
    if (!templates.ok) {
      drafts.push(...templates.drafts);
      return undefined;
    }
    const prompts = checkPromptTemplates(definition, templates.templates, path);
    if (prompts.length > 0) {
      drafts.push(...prompts);
      return undefined;
    }
    return {
      status: 'loaded',
      ref: definition.id,
      sentinel: toLoadedSentinel(definition, templates.templates, { source: 'inline' }),
    };
  }

  return {
    named,
    drafts,
    problems,

    async addNamed(id: string, entry: NamedSentinel, path: PathSegment[]): Promise<void> {
      const sentinel =
        'file' in entry ? await fromFile(entry, path, id) : await inline({ ...entry, id }, path);
      if (sentinel !== undefined) named.set(id, sentinel);
    },

    /** Undefined when the reference cannot be resolved (already reported as an error). */
    async resolveRef(ref: CodonSentinelRef, path: PathSegment[]): Promise<CodonSentinel | undefined> {
      if (typeof ref === 'string') return named.get(ref);
      if ('file' in ref) return fromFile(ref, path);
      return inline(ref, path);
    },
  };
}
