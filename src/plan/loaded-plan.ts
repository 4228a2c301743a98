import { z } from 'zod';
import { PromptMetadata } from './front-matter.ts';
import { McpServer } from './mcp-schema.ts';
import { Continuation, Plan } from './plan-schema.ts';
import { Agent, Id, Provider } from './primitives.ts';
import { DeclaredSandbox } from './sandbox-resolve.ts';
import { SentinelDefinition } from './sentinel-schema.ts';
import { Approval, Budget, Notify, OnFailure, OnVerifyFailure } from './unattended-schema.ts';
import { UsageLimitPolicy, usageLimitPolicy } from './usage-limit-schema.ts';

/**
 * What loadPlan hands the engine: codons in run order with loops expanded, prompts read, paths made
 * absolute, defaults applied. Schemas (not only types) so a loaded plan can be journaled and read back.
 */

export const LoadedSentinel = SentinelDefinition.extend({
  systemPrompt: z
    .string()
    .optional()
    .describe('System prompt template text (read from its file if it had one).'),
  userPrompt: z.string().describe('User prompt template text (read from its file if it had one).'),
  source: z.enum(['inline', 'file']).describe('Where the definition was written.'),
  sourcePath: z.string().optional().describe('Absolute path of the sentinel file, when source is file.'),
  provider: Provider.optional().describe(
    "Effective: the sentinel's own provider, else the plan one; absent: the server's provider.",
  ),
});
export type LoadedSentinel = z.infer<typeof LoadedSentinel>;

export const SentinelLoadError = z.object({
  code: z.enum(['SENTINEL_FILE_NOT_FOUND', 'SENTINEL_FILE_UNREADABLE', 'SENTINEL_FILE_INVALID']),
  message: z.string(),
});
export type SentinelLoadError = z.infer<typeof SentinelLoadError>;

/**
 * A sentinel attached to a codon. A sentinel file that cannot be loaded makes the plan invalid (as an
 * inline mistake does), so every attached sentinel is loaded; `status` stays for the shape's readers.
 */
export const CodonSentinel = z.object({
  status: z.literal('loaded'),
  ref: z.string().describe('How the plan names it: the id, or the file path as written.'),
  sentinel: LoadedSentinel,
});
export type CodonSentinel = z.infer<typeof CodonSentinel>;

export const ResolvedRigStep = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('copy'),
    from: z.string().describe('Absolute source path.'),
    to: z.string().describe('Normalized relative path inside the agent root ("." for the root itself).'),
    allowFailure: z.boolean(),
    timeoutMs: z.number().optional(),
  }),
  z.object({
    type: z.literal('run'),
    command: z.string(),
    cwd: z.object({
      base: z.enum(['agentRoot', 'execution']),
      path: z.string().describe('Normalized relative path under base ("." for base itself).'),
    }),
    allowFailure: z.boolean(),
    timeoutMs: z.number().optional(),
  }),
]);
export type ResolvedRigStep = z.infer<typeof ResolvedRigStep>;

export const LoopPlacement = z.object({
  id: Id,
  name: z.string(),
  iteration: z.number().int().min(0).describe('0-based.'),
  iterations: z.number().int().min(1),
  lastInIteration: z
    .boolean()
    .describe("True on the iteration's last codon: the loop archive runs after it succeeds."),
  archiveOnSuccess: z
    .array(z.string())
    .describe('Normalized globs archived after each successful iteration.'),
  until: z
    .enum(['verify'])
    .optional()
    .describe("verify: the loop ends once an iteration's last codon passes its gates."),
  budget: Budget.optional().describe("The loop's limits, every iteration together."),
});
export type LoopPlacement = z.infer<typeof LoopPlacement>;

export const ResolvedGate = z.object({
  run: z.string(),
  timeoutMs: z.number().int(),
  cwd: z.string().describe('Normalized relative path inside the agent root ("." for the root itself).'),
});
export type ResolvedGate = z.infer<typeof ResolvedGate>;

export const RuntimeCodon = z.object({
  id: z.string().describe('Runtime id: the codon id, or <codonId>#<iteration> inside a loop.'),
  codonId: Id.describe('The id as declared in the plan.'),
  index: z.number().int().min(0).describe('Position in run order.'),
  name: z.string(),
  description: z.string().optional(),
  agent: Agent,
  model: z.string().optional().describe("Absent: the agent's own default."),
  provider: Provider.optional().describe(
    "Effective: the codon provider, else the plan one; absent: the server's provider.",
  ),
  prompt: z.string(),
  promptFile: z
    .string()
    .optional()
    .describe('Absolute path of the prompt file, when the prompt came from one.'),
  promptMetadata: PromptMetadata.optional(),
  continuation: Continuation.describe('Effective: the first codon is always fresh.'),
  timeoutMs: z.number().int(),
  env: z.record(z.string(), z.string()).describe('defaults.env with the codon env over it.'),
  rigSetup: z.array(ResolvedRigStep),
  archiveOnSuccess: z.array(z.string()).describe('Normalized globs relative to the agent root.'),
  outputFiles: z
    .array(z.string())
    .describe('Normalized globs relative to the agent root, copied to the output directory after success.'),
  sentinels: z.array(CodonSentinel),
  loop: LoopPlacement.optional(),
  budget: Budget.optional().describe("The codon's own limits (all attempts and feedback rounds together)."),
  onFailure: OnFailure.describe(
    'Effective: the codon onFailure, else the plan onFailure, else idle without retry.',
  ),
  fallbackModel: z.string().optional().describe('Effective: the codon fallbackModel, else the plan one.'),
  onUsageLimit: UsageLimitPolicy.default(usageLimitPolicy(undefined, undefined)).describe(
    'Effective: the codon onUsageLimit, else the plan one, else wait; defaults filled in.',
  ),
  stallTimeoutMs: z
    .number()
    .int()
    .describe('Effective: the codon stallTimeoutMs, else defaults.stallTimeoutMs.'),
  verify: z.array(ResolvedGate).describe('Verification gates, in order; empty when none.'),
  onVerifyFailure: OnVerifyFailure.optional(),
  approval: Approval.default('none').describe(
    'Effective: the codon approval, else the plan one, else none (docs/review.md#approval-gates).',
  ),
  systemPrompt: z.string().optional().describe('Effective: the codon systemPrompt, else the plan one.'),
  appendSystemPrompt: z
    .string()
    .optional()
    .describe('Effective: the codon appendSystemPrompt, else the plan one.'),
  mcpServers: z
    .record(z.string(), McpServer)
    .default({})
    .describe("Effective: the plan's MCP servers with the codon's over them by name; empty when none."),
  sandbox: DeclaredSandbox.describe(
    "The plan's and the codon's sandbox settings merged; the run adds the config file's and the command line's.",
  ),
});
export type RuntimeCodon = z.infer<typeof RuntimeCodon>;

export const LoadedPlan = z.object({
  name: z.string(),
  description: z.string().optional(),
  path: z.string().describe('Absolute path of the plan file.'),
  dir: z.string().describe('Absolute directory of the plan file; relative paths in it start here.'),
  agentRoot: z.string(),
  workspace: z
    .string()
    .optional()
    .describe("The plan's workspace as written (PATH[@REF]); a relative PATH starts at dir."),
  codons: z.array(RuntimeCodon),
  sentinels: z.record(z.string(), CodonSentinel).describe('The plan-level named sentinels, resolved.'),
  budget: Budget.optional().describe("The plan's limits for the whole run (before command-line overrides)."),
  notify: Notify.describe("The plan's webhooks; empty when none."),
  raw: Plan.describe('The plan file as parsed, defaults applied.'),
});
export type LoadedPlan = z.infer<typeof LoadedPlan>;
