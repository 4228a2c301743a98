import { z } from 'zod';
import { ours } from './extension.ts';

/**
 * Ours: the sandbox (docs/agents.md#the-sandbox). A connection or request of a sandboxed agent that the
 * network gate refused. The first refusal of a target in a codon is published at once; more refusals of
 * the same target follow at most once a second, `count` saying how many there were in all so far.
 */
export const sandboxEvents = {
  'sandbox.denied': ours(
    z.object({
      codonId: z.string(),
      /** `connect`: a CONNECT tunnel (HTTPS); `request`: a plain HTTP request. */
      kind: z.enum(['connect', 'request']),
      /** `host:port` asked for. */
      target: z.string(),
      method: z.string().optional(),
      /** The request's path, without its query string. */
      path: z.string().optional(),
      /** Why it was refused, in words. */
      reason: z.string(),
      /** Refusals of this target in this codon so far, this one included. */
      count: z.number().int().min(1),
    }),
    "A sandboxed agent's connection the network gate refused.",
  ),
};
