/**
 * The cassette file (issue 31, docs/testing-plans.md): JSON Lines in the execution directory,
 * `cassette.jsonl`. A header line first, then one `exchange` line per LLM exchange of an agent or a
 * sentinel as it ended, in order, and an `outcome` line each time the recorded run ended. No header
 * value is kept, so no credential: only the request's canonical form and the answer's bytes.
 */
import { z } from 'zod';
import { CallerSchema } from './caller.ts';
import type { Canonical } from './fingerprint.ts';

export const CASSETTE_FILE = 'cassette.jsonl';
export const CASSETTE_VERSION = 1;

const CanonicalSchema: z.ZodType<Canonical> = z.lazy(() =>
  z.union([
    z.null(),
    z.boolean(),
    z.number(),
    z.string(),
    z.array(CanonicalSchema),
    z.record(z.string(), CanonicalSchema),
  ]),
);

export const HeaderLineSchema = z.object({
  type: z.literal('cassette'),
  version: z.literal(CASSETTE_VERSION),
  createdAt: z.string(),
  /** The plan recorded: `ribosome replay` runs it again unless given another (--plan). */
  plan: z.object({ name: z.string(), path: z.string() }),
  /** The workspace the recorded execution was cloned from, when it was: a replay starts from it too. */
  workspace: z.string().optional(),
  /**
   * The recorded execution's paths (fingerprint.ts Placeholders): a replay fingerprints the recorded
   * requests again with them, so a rule added since still applies to an older cassette.
   */
  placeholders: z.record(z.string(), z.string()).optional(),
});
export type HeaderLine = z.infer<typeof HeaderLineSchema>;

export const UsageSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
});

export const ExchangeLineSchema = z.object({
  type: z.literal('exchange'),
  /** 1, 2, ... in the file. */
  seq: z.number().int().positive(),
  /** When the request reached the proxy. */
  at: z.string(),
  /** Absent: a request whose base URL named no caller. */
  caller: CallerSchema.optional(),
  /** The codon's attempt the request belongs to (1 = its first), when known. */
  attempt: z.number().int().positive().optional(),
  /** 1, 2, ... among the caller's exchanges. */
  turn: z.number().int().positive(),
  method: z.string(),
  /** The request path without its query, as the provider got it (no route, caller or credential). */
  path: z.string(),
  api: z.enum(['anthropic', 'openai-responses', 'gemini']).optional(),
  model: z.string().optional(),
  fingerprint: z.string(),
  /** The request body in its canonical form (fingerprint.ts), the execution's paths as placeholders. */
  request: CanonicalSchema,
  status: z.number().int(),
  /** The answer's headers a client reads (content-type, retry-after); never a credential. */
  headers: z.record(z.string(), z.string()),
  /** Milliseconds from the request's start to the answer's head. */
  headMs: z.number().nonnegative(),
  /** The body as it streamed: [milliseconds from the request's start, text]. */
  chunks: z.array(z.tuple([z.number().nonnegative(), z.string()])),
  /** `cut`: the stream ended early (the agent left, the provider failed); replayed as cut. */
  end: z.enum(['complete', 'cut']),
  usage: UsageSchema.optional(),
});
export type ExchangeLine = z.infer<typeof ExchangeLineSchema>;

export const OutcomeCodonSchema = z.object({
  codonId: z.string(),
  status: z.string(),
  /** The tree of the codon's last checkpoint: what the workspace held when it ended. */
  tree: z.string().optional(),
  cost: z.number(),
  /** Each verification gate's last result. */
  gates: z.array(z.object({ name: z.string(), command: z.string().optional(), passed: z.boolean() })),
  /** Each sentinel's outputs and errors on the codon. */
  sentinels: z.array(z.object({ id: z.string(), outputs: z.number(), errors: z.number() })).optional(),
  /** Why it failed, when it did: said when a replay's codon ends otherwise than the recording's. */
  failure: z.string().optional(),
});
export type OutcomeCodon = z.infer<typeof OutcomeCodonSchema>;

export const OutcomeLineSchema = z.object({
  type: z.literal('outcome'),
  at: z.string(),
  codons: z.array(OutcomeCodonSchema),
});
export type OutcomeLine = z.infer<typeof OutcomeLineSchema>;

export const CassetteLineSchema = z.discriminatedUnion('type', [
  HeaderLineSchema,
  ExchangeLineSchema,
  OutcomeLineSchema,
]);
export type CassetteLine = z.infer<typeof CassetteLineSchema>;

export type Cassette = {
  header: HeaderLine;
  exchanges: ExchangeLine[];
  /** The last outcome recorded, when the recorded run ended. */
  outcome?: OutcomeLine;
};
