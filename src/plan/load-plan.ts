import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { buildLoadedPlan } from './build-plan.ts';
import { checkMcpServers } from './check-mcp.ts';
import { checkPlan } from './check-plan.ts';
import { planSandboxProblems } from './check-sandbox.ts';
import type { LoadedPlan } from './loaded-plan.ts';
import { Plan } from './plan-schema.ts';
import type { Agent } from './primitives.ts';
import {
  formatPath,
  hasErrors,
  type PathSegment,
  type PlanProblem,
  type ProblemDraft,
  sortProblems,
} from './problems.ts';
import { type CodonFiles, resolveCodon } from './resolve-codon.ts';
import { createSentinelResolver } from './resolve-sentinels.ts';
import { type SalvagedCodon, salvagePlan } from './salvage.ts';
import { readSourceFile } from './source-file.ts';
import { issuesToDrafts } from './zod-issues.ts';

export type LoadPlanResult =
  | { ok: true; plan: LoadedPlan; warnings: PlanProblem[] }
  | { ok: false; problems: PlanProblem[] };

/** Settings from the command line over the plan file's. */
export type PlanOverrides = {
  /** The plan's `model` (`ribosome run --model`): every codon without a model of its own uses it. */
  model?: string;
  /** The plan's `agent` (`ribosome run --agent`): every codon without an agent of its own uses it. */
  agent?: Agent;
  /** Environment variables of every codon (`ribosome run --var`), over the plan's `defaults.env`. */
  env?: Record<string, string>;
  /**
   * The command line named the server's provider (`ribosome run --provider-base-url`): it replaces the
   * plan's `provider`; codons and sentinels with a provider of their own keep it.
   */
  serverProvider?: boolean;
};

/**
 * Reads, validates and resolves a plan file. Every problem is reported in one pass: the schema's,
 * the cross-codon rules', and the files'. Errors make the result not ok; warnings (such as a sentinel
 * file that cannot be loaded) leave it ok and are returned beside the plan.
 */
export async function loadPlan(planPath: string, overrides: PlanOverrides = {}): Promise<LoadPlanResult> {
  const file = resolve(planPath);
  const dir = dirname(file);
  const read = await readSourceFile(file, 'plan file');
  if (!read.ok) return { ok: false, problems: read.problems };
  const { source } = read;

  // The agent is checked with the plan (a session cannot move between agents, agentConfig's reach).
  const data =
    overrides.agent !== undefined && isRecord(source.data)
      ? { ...source.data, agent: overrides.agent }
      : source.data;
  const parsed = Plan.safeParse(data);
  const salvaged = salvagePlan(data);
  const structural = parsed.success ? [] : issuesToDrafts(parsed.error.issues, Plan, data);
  const drafts: ProblemDraft[] = [
    // A nested loop gets one clear problem instead of the schema's complaints about its fields.
    ...structural.filter((d) => !salvaged.nestedLoops.some((nested) => startsWith(d.path, nested))),
    ...checkPlan(salvaged),
    ...planSandboxProblems(salvaged, { home: homedir() }),
    // Secrets are looked for here, where the plan is loaded: unset, they may still be set where it runs.
    ...checkMcpServers(salvaged, process.env),
  ];
  const problems: PlanProblem[] = [...read.warnings];

  const sentinels = createSentinelResolver(dir);
  for (const { id, entry, path } of salvaged.sentinels) await sentinels.addNamed(id, entry, path);

  const files = new Map<string, CodonFiles>();
  const codons: SalvagedCodon[] = salvaged.items.flatMap((item) =>
    (item.kind === 'loop' ? item.codons : [item]).filter((entry) => entry.kind === 'codon'),
  );
  for (const { codon, path, sentinelRefs } of codons) {
    const resolution = await resolveCodon(codon, path, dir, sentinels, sentinelRefs);
    drafts.push(...resolution.drafts);
    problems.push(...resolution.problems);
    if (resolution.files !== undefined) files.set(formatPath(path), resolution.files);
  }
  drafts.push(...sentinels.drafts);
  problems.push(...sentinels.problems, ...drafts.map(source.locate));

  const sorted = sortProblems(problems, [file]);
  if (!parsed.success || hasErrors(sorted)) return { ok: false, problems: sorted };
  const { provider: _replaced, ...withoutProvider } = parsed.data;
  const raw = {
    ...(overrides.serverProvider ? withoutProvider : parsed.data),
    ...(overrides.model === undefined ? {} : { model: overrides.model }),
    ...(overrides.env === undefined
      ? {}
      : { defaults: { ...parsed.data.defaults, env: { ...parsed.data.defaults.env, ...overrides.env } } }),
  };
  const plan = buildLoadedPlan({ raw, path: file, dir, files, sentinels: sentinels.named });
  return { ok: true, plan, warnings: sorted };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function startsWith(path: readonly PathSegment[], prefix: readonly PathSegment[]): boolean {
  return prefix.every((segment, i) => path[i] === segment);
}
