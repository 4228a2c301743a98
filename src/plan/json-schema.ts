import { z } from 'zod';
import { BatchFile } from './batch-schema.ts';
import { Codon, Plan } from './plan-schema.ts';
import { SentinelFile } from './sentinel-schema.ts';

/**
 * JSON Schemas of plan and sentinel files, generated from the zod schemas (the one source of truth)
 * and shipped in schema/ for editors. `npm run schema` (src/host/contract/generate.ts) rewrites them with
 * the protocol's; a test fails when the shipped files differ from fresh output.
 */

/** Draft-07: the draft editors' YAML and JSON language servers support best. */
const OPTIONS = {
  io: 'input',
  target: 'draft-7',
  override: (ctx) => {
    // Refinements do not reach JSON Schema; "exactly one of prompt, promptFile" is worth restating.
    if (ctx.zodSchema === Codon) {
      ctx.jsonSchema.oneOf = [{ required: ['prompt'] }, { required: ['promptFile'] }];
    }
  },
} satisfies Parameters<typeof z.toJSONSchema>[1];

/** A zod schema as JSON Schema (draft-07, input side): what schema/ ships and docs/reference/ is written from. */
export function jsonSchema(schema: z.ZodType): z.core.JSONSchema.BaseSchema {
  return z.toJSONSchema(schema, OPTIONS);
}

/** A zod schema as the text of a shipped JSON Schema file. */
export function render(schema: z.ZodType): string {
  return `${JSON.stringify(jsonSchema(schema), null, 2)}\n`;
}

export function schemaFiles(): Record<string, string> {
  return {
    'plan.schema.json': render(Plan),
    'sentinel.schema.json': render(SentinelFile),
    'batch.schema.json': render(BatchFile),
  };
}
