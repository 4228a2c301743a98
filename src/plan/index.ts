/** Plan and sentinel files: the API the engine, server and CLI use. */
export { parseRuntimeCodonId, runtimeCodonId } from './expand-loops.ts';
export { formatProblems } from './format-problems.ts';
export { PromptMetadata } from './front-matter.ts';
export { type LoadPlanResult, loadPlan, type PlanOverrides } from './load-plan.ts';
export { loadSentinelFile, type SentinelFileLoad } from './load-sentinel.ts';
export {
  CodonSentinel,
  LoadedPlan,
  LoadedSentinel,
  LoopPlacement,
  ResolvedRigStep,
  RuntimeCodon,
  SentinelLoadError,
} from './loaded-plan.ts';
export {
  Codon,
  CodonItem,
  DEFAULT_AGENT_ROOT,
  DEFAULT_CODON_TIMEOUT_MS,
  Loop,
  MAX_LOOP_ITERATIONS,
  Plan,
} from './plan-schema.ts';
export { Provider } from './primitives.ts';
export { hasErrors, PlanProblem, PlanProblemCode, ProblemSeverity } from './problems.ts';
export {
  ActionWhen,
  OutputCondition,
  SentinelAction,
  TextMatch,
} from './sentinel-actions-schema.ts';
export {
  ExecutionStrategy,
  SentinelDefinition,
  SentinelFile,
  SentinelOutput,
  Trigger,
  TriggerCondition,
} from './sentinel-schema.ts';
