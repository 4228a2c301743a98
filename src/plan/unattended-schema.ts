import { z } from 'zod';
import { issueParams, MAX_TIMEOUT_MS, Model, normalizeInside, TimeoutMs } from './primitives.ts';

/**
 * Plan fields for unattended runs (docs/unattended.md): budgets, automatic retries, a fallback
 * model, stall detection, verification gates and notifications. Each field's description is what the
 * JSON Schema and `ribosome validate` show.
 */

export const DEFAULT_STALL_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_GATE_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_BACKOFF_MS = 5_000;
export const DEFAULT_MAX_BACKOFF_MS = 5 * 60_000;
export const MAX_ATTEMPTS = 100;
export const MAX_VERIFY_ROUNDS = 100;
/** The share of a budget at which the engine warns once. */
export const BUDGET_WARNING_SHARE = 0.8;

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

export const Budget = z
  .strictObject({
    maxCostUsd: z
      .number()
      .positive()
      .describe('Most US dollars the scope may spend, agent and sentinels together (e.g. 2.5).'),
    maxDurationMs: TimeoutMs.describe('Most milliseconds the scope may run (wall clock).'),
    maxOutputTokens: z.number().int().positive().describe('Most output tokens the agent may generate.'),
  })
  .partial()
  .refine((b) => Object.keys(b).length > 0, {
    message: 'The budget sets no limit.',
    when: (payload) => isObject(payload.value),
    ...issueParams('BUDGET_EMPTY', 'Set at least one of maxCostUsd, maxDurationMs and maxOutputTokens.'),
  })
  .describe(
    'Limits checked as costs arrive. At 80 % a warning; past a limit the running codon is stopped and fails (failureReason type budget), and the run waits for a person.',
  );
export type Budget = z.infer<typeof Budget>;

export const RetryPolicy = z
  .strictObject({
    maxAttempts: z
      .number()
      .int()
      .min(1)
      .max(MAX_ATTEMPTS)
      .describe(`Attempts in all, the first included, 1 to ${MAX_ATTEMPTS}.`),
    backoffMs: z
      .number()
      .int()
      .min(0)
      .max(MAX_TIMEOUT_MS)
      .default(DEFAULT_BACKOFF_MS)
      .describe(
        `Wait before the second attempt; doubles for each further one. Default ${DEFAULT_BACKOFF_MS}.`,
      ),
    maxBackoffMs: z
      .number()
      .int()
      .min(0)
      .max(MAX_TIMEOUT_MS)
      .default(DEFAULT_MAX_BACKOFF_MS)
      .describe(
        `Longest wait between attempts (a provider's retry-after may ask for more). Default ${DEFAULT_MAX_BACKOFF_MS}.`,
      ),
  })
  .refine((r) => r.maxBackoffMs >= r.backoffMs, {
    message: 'maxBackoffMs is below backoffMs.',
    path: ['maxBackoffMs'],
    when: (payload) => isObject(payload.value),
    ...issueParams('BACKOFF_RANGE', 'Make maxBackoffMs at least backoffMs.'),
  })
  .describe(
    'Retries of retriable failures (rate-limit, api-error, a stall), each from the codon start checkpoint.',
  );
export type RetryPolicy = z.infer<typeof RetryPolicy>;

export const AfterFailure = z
  .enum(['idle', 'continue', 'abort'])
  .describe(
    'After the last attempt failed: idle (wait for a person, default), continue (go on with the next codon), abort (end the run and stop the server).',
  );
export type AfterFailure = z.infer<typeof AfterFailure>;

export const OnFailure = z
  .strictObject({
    retry: RetryPolicy.optional(),
    // biome-ignore lint/suspicious/noThenProperty: the plan field is named `then` (a string, never awaited).
    then: AfterFailure.default('idle'),
  })
  .describe('What happens when a codon fails.');
export type OnFailure = z.infer<typeof OnFailure>;

export const FallbackModel = Model.describe(
  'Model used for the remaining attempts once a rate-limit or overload failure has been retried to its limit.',
);

export const StallTimeoutMs = TimeoutMs.describe(
  `Stop the agent when it prints no line for this many milliseconds (failureReason timeout, retriable). Default ${DEFAULT_STALL_TIMEOUT_MS} (10 minutes).`,
);

export const GateCwd = z
  .string()
  .min(1)
  .default('.')
  .refine((cwd) => normalizeInside(cwd) !== undefined, {
    message: 'cwd must be a relative directory inside the agent root.',
    ...issueParams('PATH_ESCAPES', 'Write a relative path such as "." (default) or "packages/app".'),
  })
  .describe('Directory inside the agent root where the command runs. Default "." (the agent root).');

export const VerifyGate = z
  .strictObject({
    run: z.string().min(1).describe('Shell command; exit code 0 passes.'),
    timeoutMs: TimeoutMs.default(DEFAULT_GATE_TIMEOUT_MS).describe(
      `Stop the command after this many milliseconds (the gate fails). Default ${DEFAULT_GATE_TIMEOUT_MS}.`,
    ),
    cwd: GateCwd,
  })
  .describe('A check run in the agent root after the agent ends well.');
export type VerifyGate = z.infer<typeof VerifyGate>;

export const OnVerifyFailure = z
  .strictObject({
    feedback: z
      .boolean()
      .default(false)
      .describe("Continue the agent's session with the failing gate's output as the next prompt."),
    maxRounds: z
      .number()
      .int()
      .min(1)
      .max(MAX_VERIFY_ROUNDS)
      .default(3)
      .describe(`Feedback rounds after the first run, 1 to ${MAX_VERIFY_ROUNDS}. Default 3.`),
  })
  .describe('What happens when a verification gate fails.');
export type OnVerifyFailure = z.infer<typeof OnVerifyFailure>;

/**
 * Whether a person must approve a codon before the run goes on (docs/review.md#approval-gates): after
 * it ends well (its gates passed) the run waits until a client in control mode approves, requests
 * changes or rolls back.
 */
export const Approval = z
  .enum(['required', 'none'])
  .describe(
    'required: once the codon ends well (its verify gates passed), the run waits for a person to approve it (or request changes, or roll back) before anything else starts. none (default): the run goes on by itself.',
  );
export type Approval = z.infer<typeof Approval>;

export const NotifyEvent = z
  .enum([
    'run-completed',
    'run-failed',
    'codon-failed',
    'budget-exceeded',
    'stalled',
    'usage-limit',
    'approval-needed',
  ])
  .describe('When a notification is sent.');
export type NotifyEvent = z.infer<typeof NotifyEvent>;

const httpUrl = z
  .string()
  .min(1)
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return url.protocol === 'http:' || url.protocol === 'https:';
      } catch {
        return false;
      }
    },
    {
      message: 'webhook must be an http:// or https:// URL.',
      ...issueParams('INVALID_URL', 'Write the full URL, e.g. https://hooks.example.com/ribosome.'),
    },
  );

export const NotifyTarget = z
  .strictObject({
    webhook: httpUrl.describe('URL that receives a JSON POST for each event.'),
    on: z
      .array(NotifyEvent)
      .min(1)
      .default([
        'run-completed',
        'run-failed',
        'codon-failed',
        'budget-exceeded',
        'stalled',
        'usage-limit',
        'approval-needed',
      ])
      .describe('Which events are sent. Default all.'),
  })
  .describe('A webhook told about the run.');
export type NotifyTarget = z.infer<typeof NotifyTarget>;

export const Notify = z.array(NotifyTarget).describe('Webhooks told when the run ends, fails or stalls.');
