import { type ExpandableItem, expandLoops } from './expand-loops.ts';
import type { CodonSentinel, LoadedPlan, RuntimeCodon } from './loaded-plan.ts';
import { mergeMcpServers } from './mcp-schema.ts';
import type { Codon, Plan } from './plan-schema.ts';
import { normalizeInside } from './primitives.ts';
import { formatPath, type PathSegment } from './problems.ts';
import type { CodonFiles } from './resolve-codon.ts';
import { declaredSandbox } from './sandbox-resolve.ts';
import { usageLimitPolicy } from './usage-limit-schema.ts';

/** The loaded codon before loop expansion gives it a runtime id and place. */
type DeclaredCodon = Omit<RuntimeCodon, 'id' | 'index' | 'loop'>;

export type BuildInput = {
  raw: Plan;
  /** Absolute path of the plan file. */
  path: string;
  dir: string;
  /** What each codon read from disk, keyed by the formatted path of the codon in the plan. */
  files: ReadonlyMap<string, CodonFiles>;
  sentinels: ReadonlyMap<string, CodonSentinel>;
};

/** Pure: applies defaults and expands loops. Call only for a plan with no errors. */
export function buildLoadedPlan(input: BuildInput): LoadedPlan {
  const { raw } = input;
  const declare = (codon: Codon, path: PathSegment[]): DeclaredCodon => {
    const files = input.files.get(formatPath(path));
    if (files === undefined) throw new Error(`internal: codon at ${formatPath(path)} was not resolved`);
    const model = codon.model ?? raw.model;
    const provider = codon.provider ?? raw.provider;
    const fallbackModel = codon.fallbackModel ?? raw.fallbackModel;
    const systemPrompt = codon.systemPrompt ?? raw.systemPrompt;
    const appendSystemPrompt = codon.appendSystemPrompt ?? raw.appendSystemPrompt;
    return {
      codonId: codon.id,
      name: codon.name ?? codon.id,
      ...(codon.description === undefined ? {} : { description: codon.description }),
      agent: codon.agent ?? raw.agent,
      ...(model === undefined ? {} : { model }),
      ...(provider === undefined ? {} : { provider }),
      ...files,
      sentinels: files.sentinels.map(withPlanProvider),
      continuation: codon.continuation ?? raw.defaults.continuation,
      timeoutMs: codon.timeoutMs ?? raw.defaults.timeoutMs,
      env: { ...raw.defaults.env, ...codon.env },
      archiveOnSuccess: normalizeGlobs(codon.archiveOnSuccess),
      outputFiles: normalizeGlobs(codon.outputFiles),
      ...(codon.budget === undefined ? {} : { budget: codon.budget }),
      // biome-ignore lint/suspicious/noThenProperty: the plan field is named `then` (a string, never awaited).
      onFailure: codon.onFailure ?? raw.onFailure ?? { then: 'idle' },
      ...(fallbackModel === undefined ? {} : { fallbackModel }),
      onUsageLimit: usageLimitPolicy(codon.onUsageLimit, raw.onUsageLimit),
      stallTimeoutMs: codon.stallTimeoutMs ?? raw.defaults.stallTimeoutMs,
      verify: (codon.verify ?? []).map((gate) => ({
        run: gate.run,
        timeoutMs: gate.timeoutMs,
        cwd: normalizeInside(gate.cwd) ?? '.',
      })),
      ...(codon.onVerifyFailure === undefined ? {} : { onVerifyFailure: codon.onVerifyFailure }),
      approval: codon.approval ?? raw.approval ?? 'none',
      ...(systemPrompt === undefined ? {} : { systemPrompt }),
      ...(appendSystemPrompt === undefined ? {} : { appendSystemPrompt }),
      sandbox: declaredSandbox(raw.sandbox, codon.sandbox),
      mcpServers: mergeMcpServers(raw.mcpServers, codon.mcpServers),
    };
  };

  // A sentinel without a provider of its own calls the plan's (not its codon's).
  const withPlanProvider = (entry: CodonSentinel): CodonSentinel =>
    entry.sentinel.provider === undefined && raw.provider !== undefined
      ? { ...entry, sentinel: { ...entry.sentinel, provider: raw.provider } }
      : entry;

  const items = raw.codons.map((item, i): ExpandableItem<DeclaredCodon> => {
    if (!('loop' in item)) return { kind: 'codon', codon: declare(item, ['codons', i]) };
    const { loop } = item;
    return {
      kind: 'loop',
      loop: {
        id: loop.id,
        name: loop.name ?? loop.id,
        iterations: loop.iterations,
        archiveOnSuccess: normalizeGlobs(loop.archiveOnSuccess),
        ...(loop.until === undefined ? {} : { until: loop.until }),
        ...(loop.budget === undefined ? {} : { budget: loop.budget }),
      },
      codons: loop.codons.map((codon, j) => declare(codon, ['codons', i, 'loop', 'codons', j])),
    };
  });

  const codons = expandLoops(items).map(
    ({ id, codon, loop }, index): RuntimeCodon => ({
      id,
      index,
      ...codon,
      // An inherited continue-previous has nothing to continue on the first codon.
      continuation: index === 0 ? 'fresh' : codon.continuation,
      ...(loop === undefined ? {} : { loop }),
    }),
  );

  return {
    name: raw.name,
    ...(raw.description === undefined ? {} : { description: raw.description }),
    path: input.path,
    dir: input.dir,
    agentRoot: raw.agentRoot,
    ...(raw.workspace === undefined ? {} : { workspace: raw.workspace }),
    codons,
    ...(raw.budget === undefined ? {} : { budget: raw.budget }),
    notify: raw.notify ?? [],
    sentinels: Object.fromEntries([...input.sentinels].map(([id, entry]) => [id, withPlanProvider(entry)])),
    raw,
  };
}

function normalizeGlobs(globs: readonly string[] | undefined): string[] {
  return (globs ?? []).map((glob) => normalizeInside(glob) ?? glob);
}
