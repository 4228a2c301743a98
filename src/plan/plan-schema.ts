import { z } from 'zod';
import { insideGlob } from './glob-escape.ts';
import { CodonMcpServers, McpServers } from './mcp-schema.ts';
import {
  AGENT_ROOT_PATTERN,
  Agent,
  ClaudeConfig,
  Env,
  Id,
  insidePath,
  issueParams,
  MAX_TIMEOUT_MS,
  Model,
  normalizeInside,
  Provider,
  TimeoutMs,
} from './primitives.ts';
import { SandboxSetting } from './sandbox-schema.ts';
import { CodonSentinelRef, NamedSentinel } from './sentinel-schema.ts';
import {
  Approval,
  Budget,
  DEFAULT_STALL_TIMEOUT_MS,
  FallbackModel,
  Notify,
  OnFailure,
  OnVerifyFailure,
  StallTimeoutMs,
  VerifyGate,
} from './unattended-schema.ts';
import { OnUsageLimit } from './usage-limit-schema.ts';

/** The plan file: what a user writes. Loading (src/plan/load-plan.ts) turns it into a LoadedPlan. */

export const DEFAULT_AGENT_ROOT = 'agentRoot';

const SystemPrompt = z.string().min(1).describe('A system prompt.');
const AppendSystemPrompt = z.string().min(1).describe('Text added after the system prompt.');
export const DEFAULT_CODON_TIMEOUT_MS = 30 * 60_000;
/** Loops expand into one runtime codon per iteration, so bound them to keep a plan's memory bounded. */
export const MAX_LOOP_ITERATIONS = 10_000;

export const Continuation = z
  .enum(['fresh', 'continue-previous'])
  .describe("fresh: a new agent session. continue-previous: resume the previous codon's session.");
export type Continuation = z.infer<typeof Continuation>;

const AGENT_ROOT_TEXT = 'the agent root';
const stepOptions = {
  allowFailure: z
    .boolean()
    .default(false)
    .describe('Go on with the codon when this step fails. Default false.'),
  timeoutMs: TimeoutMs.optional().describe('Stop the step after this many milliseconds.'),
};

export const CopyStep = z
  .strictObject({
    copy: z
      .strictObject({
        from: z
          .string()
          .min(1)
          .describe('File or directory to copy, relative to the plan file (absolute allowed).'),
        to: insidePath(AGENT_ROOT_TEXT).describe(
          'Destination inside the agent root, e.g. "." or "src/data".',
        ),
      })
      .describe('Copy a file or directory into the agent root.'),
    ...stepOptions,
  })
  .describe('Copy a file or directory into the agent root before the agent starts.');

export const RunStep = z
  .strictObject({
    run: z.string().min(1).describe('Shell command.'),
    cwd: z
      .string()
      .min(1)
      .default('agentRoot')
      .refine((cwd) => cwd === 'agentRoot' || cwd === 'execution' || normalizeInside(cwd) !== undefined, {
        message: 'cwd must be agentRoot, execution, or a relative directory inside the agent root.',
        ...issueParams(
          'PATH_ESCAPES',
          'Use agentRoot (default), execution, or a relative path such as "./tools".',
        ),
      })
      .describe(
        'Where the command runs: agentRoot (default), execution (the execution directory), or a relative directory inside the agent root (write "./execution" for a directory of that name).',
      ),
    ...stepOptions,
  })
  .describe('Run a shell command before the agent starts.');

export const RigSetupStep = z.union([CopyStep, RunStep]).describe('A rig setup step: copy or run.');
export type RigSetupStep = z.infer<typeof RigSetupStep>;

const ArchiveOnSuccess = z
  .array(insideGlob(AGENT_ROOT_TEXT))
  .describe('Globs (relative to the agent root) of files moved to rigArchive/ after success.');

const OutputFiles = z
  .array(insideGlob(AGENT_ROOT_TEXT))
  .describe(
    'Globs (relative to the agent root) of files copied to the output directory (run --output, default <execution>/output) after the codon succeeds, keeping their paths. Never through a symlink out of the agent root, never from .git.',
  );

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

export const Codon = z
  .strictObject({
    id: Id.describe('Codon id, unique in the plan (loops included).'),
    name: z.string().min(1).optional().describe('Display name. Default: the id.'),
    description: z.string().optional().describe('What the codon does, for people.'),
    prompt: z.string().min(1).optional().describe('The prompt. Give this or promptFile.'),
    promptFile: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Prompt file, relative to the plan (absolute allowed). Optional YAML front matter (name, description, tags, version, author) becomes promptMetadata.',
      ),
    agent: Agent.optional().describe('Agent for this codon. Default: the plan agent.'),
    model: Model.optional().describe('Model for this codon. Default: the plan model.'),
    provider: Provider.optional().describe(
      "The endpoint this codon's agent talks to. Default: the plan provider, else the server's (--provider-base-url).",
    ),
    continuation: Continuation.optional().describe(
      "fresh: a new agent session. continue-previous: resume the previous codon's session (not on the first codon). Default: defaults.continuation.",
    ),
    timeoutMs: TimeoutMs.optional().describe(
      'Stop the agent after this many milliseconds. Default: defaults.timeoutMs.',
    ),
    env: Env.optional().describe('Environment variables for the agent, over defaults.env.'),
    rigSetup: z.array(RigSetupStep).optional().describe('Steps run before the agent starts, in order.'),
    archiveOnSuccess: ArchiveOnSuccess.optional(),
    outputFiles: OutputFiles.optional(),
    sentinels: z.array(CodonSentinelRef).optional().describe('Sentinels that watch this codon.'),
    budget: Budget.optional().describe(
      'Limits of this codon, all its attempts and feedback rounds together.',
    ),
    onFailure: OnFailure.optional().describe(
      'What happens when this codon fails. Default: the plan onFailure.',
    ),
    fallbackModel: FallbackModel.optional(),
    onUsageLimit: OnUsageLimit.optional().describe(
      'What happens when the agent reaches a usage limit. Default: the plan onUsageLimit.',
    ),
    stallTimeoutMs: StallTimeoutMs.optional(),
    verify: z
      .array(VerifyGate)
      .min(1)
      .optional()
      .describe('Checks run in order after the agent ends well; the codon succeeds only when all pass.'),
    onVerifyFailure: OnVerifyFailure.optional(),
    approval: Approval.optional().describe(
      'required: once this codon ends well (its verify gates passed), the run waits for a person to approve it, request changes or roll back (docs/review.md#approval-gates). Default: the plan approval, else none.',
    ),
    systemPrompt: SystemPrompt.optional().describe(
      "Replaces the agent's own system prompt for this codon. Default: the plan systemPrompt.",
    ),
    appendSystemPrompt: AppendSystemPrompt.optional().describe(
      "Added after the agent's system prompt for this codon. Default: the plan appendSystemPrompt.",
    ),
    mcpServers: CodonMcpServers.optional(),
    sandbox: SandboxSetting.optional().describe(
      "How this codon's agent is confined, over the plan's sandbox: mode, gates, rig and network replace the plan's; allowWrite, readOnly and hide add to its lists (docs/agents.md#the-sandbox).",
    ),
  })
  // Checked even when other fields are wrong, so every problem shows at once.
  .refine((c) => c.prompt === undefined || c.promptFile === undefined, {
    message: 'Give either prompt or promptFile, not both.',
    path: ['promptFile'],
    when: (payload) => isObject(payload.value),
    ...issueParams('PROMPT_CONFLICT', 'Remove one of them.'),
  })
  .refine((c) => c.prompt !== undefined || c.promptFile !== undefined, {
    message: 'The codon has no prompt.',
    when: (payload) => isObject(payload.value),
    ...issueParams('PROMPT_MISSING', 'Add `prompt: <text>` or `promptFile: <path relative to the plan>`.'),
  })
  .describe('A step of the plan, run by one agent session.')
  .meta({ id: 'Codon' });
export type Codon = z.infer<typeof Codon>;

/** The loop's fields, before the checks across them (salvage.ts reads the header alone). */
export const LoopFields = z.strictObject({
  id: Id.describe('Loop id, unique in the plan (codon ids included).'),
  name: z.string().min(1).optional().describe('Display name. Default: the id.'),
  description: z.string().optional().describe('What the loop does, for people.'),
  iterations: z
    .number()
    .int()
    .min(1)
    .max(MAX_LOOP_ITERATIONS)
    .describe(`How many times the codons run, 1 to ${MAX_LOOP_ITERATIONS}.`),
  codons: z
    .array(Codon)
    .min(1)
    .describe('Codons of one iteration, in order. Loops do not nest. Runtime ids are <codonId>#<iteration>.'),
  archiveOnSuccess: ArchiveOnSuccess.optional().describe(
    'Globs (relative to the agent root) of files moved to rigArchive/ after each successful iteration.',
  ),
  until: z
    .enum(['verify'])
    .optional()
    .describe(
      "verify: stop repeating as soon as an iteration's last codon passes its verify gates; iterations stays the cap.",
    ),
  budget: Budget.optional().describe('Limits of the whole loop, every iteration together.'),
});

export const Loop = LoopFields.refine(
  (l) => l.until === undefined || (l.codons.at(-1)?.verify?.length ?? 0) > 0,
  {
    message: 'The loop runs until verify, but its last codon has no verify gates.',
    path: ['until'],
    when: (payload) =>
      isObject(payload.value) && Array.isArray((payload.value as { codons?: unknown }).codons),
    ...issueParams('UNTIL_WITHOUT_VERIFY', "Add `verify: [{ run: <command> }]` to the loop's last codon."),
  },
).describe('Codons repeated `iterations` times: a#0, b#0, a#1, b#1, ...');
export type Loop = z.infer<typeof Loop>;

export const LoopItem = z.strictObject({ loop: Loop }).describe('A loop block.');
export type LoopItem = z.infer<typeof LoopItem>;

export const CodonItem = z.union([Codon, LoopItem]).describe('A codon or a loop block.');
export type CodonItem = z.infer<typeof CodonItem>;

export const PlanDefaults = z
  .strictObject({
    timeoutMs: TimeoutMs.default(DEFAULT_CODON_TIMEOUT_MS).describe(
      `Codon timeout in milliseconds, 1 to ${MAX_TIMEOUT_MS}. Default ${DEFAULT_CODON_TIMEOUT_MS} (30 minutes).`,
    ),
    env: Env.default({}).describe('Environment variables for every codon.'),
    continuation: Continuation.default('fresh').describe(
      'Continuation of codons that set none. Default fresh. The first codon always starts fresh.',
    ),
    stallTimeoutMs: StallTimeoutMs.default(DEFAULT_STALL_TIMEOUT_MS),
  })
  .prefault({})
  .describe('Defaults for every codon.');
export type PlanDefaults = z.infer<typeof PlanDefaults>;

export const Plan = z
  .strictObject({
    $schema: z.string().optional().describe('JSON Schema of this file, for editors.'),
    name: z.string().min(1).describe('Plan name.'),
    description: z.string().optional().describe('What the plan does, for people.'),
    agent: Agent.default('builtin').describe(
      'Default agent of every codon: builtin (default), claude-code, codex, gemini or opencode.',
    ),
    model: Model.optional().describe("Default model of every codon. Absent: the agent's own default."),
    provider: Provider.optional().describe(
      "Default endpoint of every codon and sentinel without one of its own. Absent: the server's (--provider-base-url, which also replaces this one).",
    ),
    agentRoot: z
      .string()
      .regex(AGENT_ROOT_PATTERN)
      .default(DEFAULT_AGENT_ROOT)
      .describe(
        `Name of the agent's working directory inside the execution directory. Default ${DEFAULT_AGENT_ROOT}.`,
      ),
    defaults: PlanDefaults,
    sentinels: z
      .record(Id, NamedSentinel)
      .default({})
      .describe('Named sentinels; codons attach them by id. The key is the sentinel id.'),
    codons: z.array(CodonItem).describe('The codons, in order; may be empty.'),
    budget: Budget.optional().describe(
      'Limits of the whole run (since the server started); --max-cost and --max-time override them.',
    ),
    onFailure: OnFailure.optional().describe('What happens when a codon fails. Default: wait for a person.'),
    approval: Approval.optional().describe(
      'Approval of every codon without one of its own: required makes the run wait for a person after each codon that ends well (docs/review.md#approval-gates). Default none.',
    ),
    fallbackModel: FallbackModel.optional(),
    onUsageLimit: OnUsageLimit.optional().describe(
      "What happens when an agent reaches a usage limit (a subscription's window, a quota): wait for the reset (default), fail, or hand the codon to a fallbackAgent (docs/unattended.md#usage-limits).",
    ),
    notify: Notify.optional(),
    claudeConfig: ClaudeConfig.optional().describe(
      "Whose Claude Code configuration the claude-code agent runs with: isolated (default) or user (the user's ~/.claude login and settings). Over the config file's claudeConfig and over agentConfig.",
    ),
    agentConfig: ClaudeConfig.optional().describe(
      "Whose configuration the codex, gemini and opencode agents (and claude-code, unless claudeConfig says otherwise) run with: isolated (default: a home and config of their own in the execution directory) or user (the user's own HOME: their logins and settings). Over the config file's agentConfig.",
    ),
    systemPrompt: SystemPrompt.optional().describe(
      "Replaces the agents' own system prompt (every agent). Absent: each agent's default.",
    ),
    appendSystemPrompt: AppendSystemPrompt.optional().describe(
      "Added after the agents' system prompt (every agent), e.g. the project's conventions.",
    ),
    workspace: z
      .string()
      .min(1)
      .optional()
      .describe(
        "PATH[@REF]: a fresh execution's agent root starts as a clone of this git repository at REF (default its HEAD; a branch, tag or commit). A relative PATH starts at the plan's folder; --workspace overrides it. The repository is never written.",
      ),
    mcpServers: McpServers.optional(),
    sandbox: SandboxSetting.optional().describe(
      "How every codon's agent is confined: auto (default), on, off, or settings (docs/agents.md#the-sandbox). Over the config file's sandbox; --sandbox and --no-sandbox replace the mode.",
    ),
  })
  .meta({ title: 'Ribosome plan' })
  .describe('A Ribosome plan: codons run in order by coding agents.');
export type Plan = z.infer<typeof Plan>;
