import { z } from 'zod';
import { conditionSchema } from './conditions.ts';
import {
  EVENT_PATH_PATTERN,
  Id,
  insidePath,
  issueParams,
  MAX_TIMEOUT_MS,
  Model,
  Provider,
} from './primitives.ts';
import { SentinelActionsShape } from './sentinel-actions-schema.ts';

/**
 * Sentinel definitions: an LLM monitor that watches a codon's events. Declared inline in a plan or in
 * a YAML/JSON file of its own; this module only describes and validates them (the runtime lives in
 * src/engine/sentinels/).
 */

export const DEFAULT_MAX_QUEUE = 1000;
export const DEFAULT_SENTINEL_MAX_TOKENS = 1024;
export const DEFAULT_MAX_CONSECUTIVE_FAILURES = 3;

export const TemplateSource = z
  .union([
    z.string().min(1).describe('Template text.'),
    z
      .strictObject({
        file: z
          .string()
          .min(1)
          .describe(
            'Template file, relative to the file that declares the sentinel (the plan or the sentinel file).',
          ),
      })
      .describe('Read the template from a file.'),
  ])
  .describe('A prompt template, written inline or read from a file.')
  .meta({ id: 'TemplateSource' });
export type TemplateSource = z.infer<typeof TemplateSource>;

const EventPath = z
  .string()
  .regex(EVENT_PATH_PATTERN)
  .describe('Dotted path into the event, e.g. data.toolName or data.toolInput.command.');
export const TriggerCondition = conditionSchema(EventPath)
  .describe('A test on one field of an event. A missing field never matches.')
  .meta({ id: 'TriggerCondition' });
export type TriggerCondition = z.infer<typeof TriggerCondition>;

const Conditions = z
  .array(TriggerCondition)
  .default([])
  .describe('All conditions must hold (logical AND). Empty: every event of the type matches.');
const EventType = z.string().min(1).describe('A protocol event type, e.g. tool.result or assistant.action.');

export const Trigger = z
  .discriminatedUnion('type', [
    z
      .strictObject({
        type: z.literal('event'),
        eventTypes: z.array(EventType).min(1).describe('Event types that can fire the trigger.'),
        conditions: Conditions,
      })
      .describe('Fires on each event of one of the listed types that meets the conditions.'),
    z
      .strictObject({
        type: z.literal('sequence'),
        steps: z
          .array(z.strictObject({ eventType: EventType, conditions: Conditions }))
          .min(1)
          .describe('Events that must occur in this order (other events may come between them).'),
        withinEvents: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe('The whole sequence must complete within this many events; unbounded when absent.'),
      })
      .describe('Fires when the steps occur in order.'),
  ])
  .describe('What makes the sentinel fire.')
  .meta({ id: 'Trigger' });
export type Trigger = z.infer<typeof Trigger>;

const Duration = z.number().int().min(1).max(MAX_TIMEOUT_MS);

export const ExecutionStrategy = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('immediate') }).describe('Call the LLM on every trigger.'),
    z
      .strictObject({
        type: z.literal('debounce'),
        quietMs: Duration.describe('Call the LLM once no trigger has fired for this many milliseconds.'),
      })
      .describe('Batch bursts of triggers.'),
    z
      .strictObject({
        type: z.literal('count'),
        every: z.number().int().min(1).max(1_000_000).describe('Call the LLM on every Nth trigger.'),
      })
      .describe('Call the LLM every N triggers.'),
    z
      .strictObject({
        type: z.literal('timeWindow'),
        intervalMs: Duration.describe(
          'Call the LLM at most once per interval, with the events queued meanwhile.',
        ),
        leading: z
          .boolean()
          .optional()
          .describe(
            'true: a trigger that comes at least intervalMs after the last call is called at once (then the window runs from that call), so a first look is not an interval late. Default false: the first trigger opens the window and the call comes when it closes.',
          ),
      })
      .describe('Call the LLM on a fixed interval while triggers are pending.'),
  ])
  .prefault({ type: 'immediate' })
  .describe('When a trigger becomes an LLM call. Default: immediate.');
export type ExecutionStrategy = z.infer<typeof ExecutionStrategy>;

// The value is a JSON Schema handed on to the model; only its top level is ours to check.
const JsonSchemaObject = z
  .record(z.string(), z.unknown())
  .refine((schema) => schema.type === 'object', {
    message: 'A structured output schema must have `type: object` at its top.',
    ...issueParams(
      'INVALID_VALUE',
      'Wrap the fields in `type: object` with `properties:`; the model answers with one object.',
    ),
  })
  .describe('JSON Schema of the answer; its top level must be `type: object`.');

export const SentinelOutput = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('text') }).describe('Free text.'),
    z
      .strictObject({ type: z.literal('structured'), schema: JsonSchemaObject })
      .describe('An object that matches `schema`.'),
  ])
  .prefault({ type: 'text' })
  .describe('Shape of each LLM answer. Default: text.');
export type SentinelOutput = z.infer<typeof SentinelOutput>;

const SENTINEL_DIR = 'the execution directory\'s ".ribosome/sentinels/"';

const SentinelBodyShape = {
  description: z.string().optional().describe('What the sentinel watches for, for people reading the plan.'),
  model: Model.describe('Model the sentinel calls, e.g. claude-haiku-4-5.'),
  provider: Provider.optional().describe(
    "The endpoint the sentinel calls (e.g. a cheaper gateway). Default: the plan provider, else the server's.",
  ),
  systemPrompt: TemplateSource.optional().describe('System prompt template.'),
  userPrompt: TemplateSource.describe('User prompt template, rendered with the queued events on each call.'),
  trigger: Trigger,
  executionStrategy: ExecutionStrategy,
  maxQueue: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(DEFAULT_MAX_QUEUE)
    .describe(
      `Most events kept waiting for a call; the oldest are dropped beyond it. Default ${DEFAULT_MAX_QUEUE}.`,
    ),
  conversational: z
    .strictObject({
      enabled: z.boolean().default(false).describe('Keep earlier calls and answers as conversation history.'),
      maxTurns: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe('Most earlier turns kept; older ones are dropped.'),
      maxTokens: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe('Most history tokens kept; older turns are dropped.'),
    })
    .prefault({})
    .describe('Whether each call sees the earlier calls. Default: off.'),
  output: SentinelOutput,
  outputFiles: z
    .strictObject({
      log: insidePath(SENTINEL_DIR)
        .optional()
        .describe(`File every output is appended to, relative to ${SENTINEL_DIR}.`),
      last: insidePath(SENTINEL_DIR)
        .optional()
        .describe(`File holding only the latest output, relative to ${SENTINEL_DIR}.`),
    })
    .optional()
    .describe('Where outputs are also written. None when absent (outputs are still sent as events).'),
  errorHandling: z
    .strictObject({
      maxConsecutiveFailures: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .default(DEFAULT_MAX_CONSECUTIVE_FAILURES)
        .describe(
          `Unload the sentinel after this many failed LLM calls in a row. Default ${DEFAULT_MAX_CONSECUTIVE_FAILURES}.`,
        ),
      failCodonOnLoadError: z
        .boolean()
        .default(false)
        .describe(
          'Fail the codon (sentinel-load-failure) when the sentinel cannot be loaded at codon start (a prompt template that does not parse, an output schema or output path that cannot be used). Default false.',
        ),
    })
    .prefault({})
    .describe('What to do when the sentinel fails.'),
  maxTokens: z
    .number()
    .int()
    .min(1)
    .max(128_000)
    .default(DEFAULT_SENTINEL_MAX_TOKENS)
    .describe(`max_tokens of each LLM call. Default ${DEFAULT_SENTINEL_MAX_TOKENS}.`),
  ...SentinelActionsShape,
};

/** A complete sentinel definition, as written inline in a codon's `sentinels` list. */
export const SentinelDefinition = z
  .strictObject({
    id: Id.describe('Sentinel id, unique among the sentinels of a codon.'),
    ...SentinelBodyShape,
  })
  .describe('A sentinel: an LLM monitor of the codon it is attached to.')
  .meta({ id: 'SentinelDefinition' });
export type SentinelDefinition = z.infer<typeof SentinelDefinition>;

/** A sentinel file: a definition, optionally naming its JSON Schema for editors. */
export const SentinelFile = SentinelDefinition.extend({
  $schema: z.string().optional().describe('JSON Schema of this file, for editors.'),
}).meta({ title: 'Ribosome sentinel definition' });
export type SentinelFile = z.infer<typeof SentinelFile>;

export const SentinelFileRef = z
  .strictObject({
    file: z.string().min(1).describe('Sentinel definition file (YAML or JSON), relative to the plan.'),
    failCodonOnLoadError: z
      .boolean()
      .default(false)
      .describe(
        'No effect, kept so that plans that set it stay valid: a sentinel file that cannot be loaded (missing or invalid) is an error of the plan, and the plan does not run. Default false.',
      ),
  })
  .describe('A sentinel defined in its own file.')
  .meta({ id: 'SentinelFileRef' });
export type SentinelFileRef = z.infer<typeof SentinelFileRef>;

/** Value of the plan-level `sentinels` map: the key is the id, so an inline body may leave `id` out. */
export const NamedSentinel = z
  .union([
    SentinelFileRef,
    z
      .strictObject({
        id: Id.optional().describe('Must equal the map key when given.'),
        ...SentinelBodyShape,
      })
      .describe('An inline sentinel definition.'),
  ])
  .describe('A named sentinel, inline or in a file.');
export type NamedSentinel = z.infer<typeof NamedSentinel>;

/** An item of a codon's `sentinels` list. */
export const CodonSentinelRef = z
  .union([
    Id.describe('Id of a sentinel declared in the plan-level `sentinels` map.'),
    SentinelFileRef,
    SentinelDefinition,
  ])
  .describe('A sentinel attached to the codon: a plan-level id, a file, or an inline definition.');
export type CodonSentinelRef = z.infer<typeof CodonSentinelRef>;
