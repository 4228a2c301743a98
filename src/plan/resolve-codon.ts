import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parsePromptFile } from './front-matter.ts';
import type { CodonSentinel, ResolvedRigStep, RuntimeCodon } from './loaded-plan.ts';
import type { Codon, RigSetupStep } from './plan-schema.ts';
import { normalizeInside } from './primitives.ts';
import type { PathSegment, PlanProblem, ProblemDraft } from './problems.ts';
import type { SentinelResolver } from './resolve-sentinels.ts';
import type { CodonSentinelRef } from './sentinel-schema.ts';
import { readText } from './source-file.ts';

/** The parts of a codon that come from the file system: prompt, rig setup sources, sentinels. */
export type CodonFiles = Pick<
  RuntimeCodon,
  'prompt' | 'promptFile' | 'promptMetadata' | 'rigSetup' | 'sentinels'
>;

export type CodonResolution = {
  /** Undefined when something the codon needs could not be read. */
  files: CodonFiles | undefined;
  /** Problems in the plan file. */
  drafts: ProblemDraft[];
  /** Problems in other files (the prompt file). */
  problems: PlanProblem[];
};

/** `sentinelRefs`: its valid sentinel references with their places in its list (salvage.ts). */
export async function resolveCodon(
  codon: Codon,
  path: PathSegment[],
  planDir: string,
  sentinels: SentinelResolver,
  sentinelRefs: ReadonlyArray<{ index: number; ref: CodonSentinelRef }>,
): Promise<CodonResolution> {
  const drafts: ProblemDraft[] = [];
  const problems: PlanProblem[] = [];

  let prompt: Pick<CodonFiles, 'prompt' | 'promptFile' | 'promptMetadata'> | undefined;
  if (codon.prompt !== undefined) {
    prompt = { prompt: codon.prompt };
  } else if (codon.promptFile !== undefined) {
    const file = resolve(planDir, codon.promptFile);
    const read = await readText(file);
    if (!read.ok) {
      drafts.push({
        code: read.code,
        path: [...path, 'promptFile'],
        message: `Cannot read the prompt file ${file}: ${read.reason}.`,
        hint: 'Fix the path; it is relative to the plan file.',
      });
    } else {
      const content = parsePromptFile(read.text, file);
      if (!content.ok) {
        problems.push(...content.problems);
      } else if (content.body.trim() === '') {
        drafts.push({
          code: 'PROMPT_EMPTY',
          path: [...path, 'promptFile'],
          message: `The prompt file ${file} has no prompt${content.metadata ? ' after its front matter' : ''}.`,
          hint: 'Write the prompt in the file (below the closing "---" of any front matter).',
        });
      } else {
        prompt = { prompt: content.body, promptFile: file, promptMetadata: content.metadata };
      }
    }
  }

  const rigSetup: ResolvedRigStep[] = [];
  for (const [i, step] of (codon.rigSetup ?? []).entries()) {
    const resolved = resolveStep(step, planDir);
    if (resolved.type === 'copy' && !(await exists(resolved.from))) {
      drafts.push({
        code: 'FILE_NOT_FOUND',
        path: [...path, 'rigSetup', i, 'copy', 'from'],
        message: `The copy source ${resolved.from} does not exist.`,
        hint: 'Fix the path; `from` is relative to the plan file.',
      });
    }
    rigSetup.push(resolved);
  }

  const attached: Array<{ index: number; sentinel: CodonSentinel }> = [];
  for (const { index, ref } of sentinelRefs) {
    const sentinel = await sentinels.resolveRef(ref, [...path, 'sentinels', index]);
    if (sentinel !== undefined) attached.push({ index, sentinel });
  }
  drafts.push(...duplicateSentinels(attached, codon, path));

  if (prompt === undefined || drafts.length > 0 || problems.length > 0)
    return { files: undefined, drafts, problems };
  return { files: { ...prompt, rigSetup, sentinels: attached.map((a) => a.sentinel) }, drafts, problems };
}

function resolveStep(step: RigSetupStep, planDir: string): ResolvedRigStep {
  const common = {
    allowFailure: step.allowFailure,
    ...(step.timeoutMs === undefined ? {} : { timeoutMs: step.timeoutMs }),
  };
  if ('copy' in step) {
    // The schema has checked that `to` stays inside the agent root.
    return {
      type: 'copy',
      from: resolve(planDir, step.copy.from),
      to: normalizeInside(step.copy.to) ?? '.',
      ...common,
    };
  }
  const cwd: Extract<ResolvedRigStep, { type: 'run' }>['cwd'] =
    step.cwd === 'agentRoot' || step.cwd === 'execution'
      ? { base: step.cwd, path: '.' }
      : { base: 'agentRoot', path: normalizeInside(step.cwd) ?? '.' };
  return { type: 'run', command: step.run, cwd, ...common };
}

/** Two sentinels with one id on a codon would share events and output files. */
function duplicateSentinels(
  attached: ReadonlyArray<{ index: number; sentinel: CodonSentinel }>,
  codon: Codon,
  path: PathSegment[],
): ProblemDraft[] {
  const drafts: ProblemDraft[] = [];
  const seen = new Set<string>();
  for (const { index, sentinel } of attached) {
    const id = sentinel.sentinel.id;
    if (!seen.has(id)) {
      seen.add(id);
      continue;
    }
    drafts.push({
      code: 'DUPLICATE_SENTINEL',
      path: [...path, 'sentinels', index],
      message: `Sentinel "${id}" is attached to codon "${codon.id}" more than once.`,
      hint: 'Remove the repeated reference, or give the second sentinel another id.',
    });
  }
  return drafts;
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
