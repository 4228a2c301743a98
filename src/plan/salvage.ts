import type { z } from 'zod';
import { McpServer } from './mcp-schema.ts';
import { Codon, LoopFields, Plan } from './plan-schema.ts';
import { Id } from './primitives.ts';
import type { PathSegment } from './problems.ts';
import { isRecord, salvageObject, valid } from './salvage-object.ts';
import { type SentinelParts, salvageSentinel } from './salvage-sentinel.ts';
import { CodonSentinelRef, type NamedSentinel, SentinelFileRef } from './sentinel-schema.ts';

/**
 * The valid parts of a plan that may be invalid elsewhere, so cross-codon checks and file checks can
 * report their problems in the same pass as the schema's, instead of one fix-and-rerun later. A codon
 * with a bad field is kept without that field when what is left is still a codon.
 */

const LoopHeader = LoopFields.omit({ codons: true });
export type LoopHeader = z.infer<typeof LoopHeader>;

export type SalvagedCodon = {
  kind: 'codon';
  codon: Codon;
  path: PathSegment[];
  /** Fields left out because they were invalid; checks that depend on them stay silent. */
  dropped: string[];
  /**
   * Its valid sentinel references at their places in its list, also when another entry of the list is
   * invalid (the list is then dropped from `codon`), so the files they name are still checked.
   */
  sentinelRefs: Array<{ index: number; ref: CodonSentinelRef }>;
};
/** An invalid codon or loop block; its id is kept when readable, so duplicates are still found. */
export type InvalidEntry = { kind: 'invalid'; path: PathSegment[]; id?: string };
export type SalvagedEntry = SalvagedCodon | InvalidEntry;

export type SalvagedLoop = {
  kind: 'loop';
  /** Undefined when the loop's own fields are invalid (its codons are still checked). */
  loop: LoopHeader | undefined;
  id?: string;
  /** Path of the loop block, `codons[i].loop`. */
  path: PathSegment[];
  codons: SalvagedEntry[];
};

export type SalvagedItem = SalvagedEntry | SalvagedLoop;

export type SalvagedPlan = {
  /** Undefined when the field itself is invalid. */
  agent: z.infer<typeof Plan.shape.agent> | undefined;
  defaults: z.infer<typeof Plan.shape.defaults> | undefined;
  model: string | undefined;
  fallbackModel: string | undefined;
  onUsageLimit: z.infer<typeof Plan.shape.onUsageLimit> | undefined;
  agentConfig: z.infer<typeof Plan.shape.agentConfig> | undefined;
  claudeConfig: z.infer<typeof Plan.shape.claudeConfig> | undefined;
  sandbox: z.infer<typeof Plan.shape.sandbox> | undefined;
  /** The valid entries of the plan's `mcpServers`, by name. */
  mcpServers: Record<string, McpServer>;
  /** Every key of the plan's `mcpServers` map, valid entry or not. */
  mcpServerNames: string[];
  /** Every key of the `sentinels` map, valid entry or not. */
  sentinelIds: string[];
  sentinels: Array<{ id: string; entry: NamedSentinel; path: PathSegment[] }>;
  /**
   * The valid parts of every inline sentinel definition (named or in a codon's list), valid or not,
   * for the checks beyond the schema.
   */
  sentinelParts: Array<{ parts: SentinelParts; path: PathSegment[] }>;
  items: SalvagedItem[];
  /** Paths of loop blocks found inside a loop. */
  nestedLoops: PathSegment[][];
};

const InlineNamedSentinel = Plan.shape.sentinels.unwrap().valueType.options[1];

export function salvagePlan(data: unknown): SalvagedPlan {
  const plan: SalvagedPlan = {
    agent: undefined,
    defaults: undefined,
    model: undefined,
    fallbackModel: undefined,
    onUsageLimit: undefined,
    agentConfig: undefined,
    claudeConfig: undefined,
    sandbox: undefined,
    mcpServers: {},
    mcpServerNames: [],
    sentinelIds: [],
    sentinels: [],
    sentinelParts: [],
    items: [],
    nestedLoops: [],
  };
  if (!isRecord(data)) return plan;
  plan.agent = valid(Plan.shape.agent, data.agent);
  plan.defaults = valid(Plan.shape.defaults, data.defaults);
  plan.model = valid(Plan.shape.model, data.model);
  plan.fallbackModel = valid(Plan.shape.fallbackModel, data.fallbackModel);
  plan.onUsageLimit = valid(Plan.shape.onUsageLimit, data.onUsageLimit);
  plan.agentConfig = valid(Plan.shape.agentConfig, data.agentConfig);
  plan.claudeConfig = valid(Plan.shape.claudeConfig, data.claudeConfig);
  plan.sandbox = valid(Plan.shape.sandbox, data.sandbox);
  if (isRecord(data.mcpServers)) {
    for (const [name, value] of Object.entries(data.mcpServers)) {
      plan.mcpServerNames.push(name);
      const server = valid(McpServer, value);
      if (server !== undefined) plan.mcpServers[name] = server;
    }
  }

  if (isRecord(data.sentinels)) {
    for (const [id, value] of Object.entries(data.sentinels)) {
      plan.sentinelIds.push(id);
      const entry =
        isRecord(value) && 'file' in value
          ? valid(SentinelFileRef, value)
          : salvageObject(InlineNamedSentinel, value)?.value;
      if (entry !== undefined) plan.sentinels.push({ id, entry, path: ['sentinels', id] });
      if (isRecord(value) && !('file' in value))
        plan.sentinelParts.push({ parts: salvageSentinel(value), path: ['sentinels', id] });
    }
  }

  if (!Array.isArray(data.codons)) return plan;
  for (const [i, item] of data.codons.entries()) {
    const path: PathSegment[] = ['codons', i];
    if (isRecord(item) && 'loop' in item) plan.items.push(salvageLoop(item.loop, [...path, 'loop'], plan));
    else plan.items.push(salvageCodon(item, path, plan));
  }
  return plan;
}

function salvageLoop(data: unknown, path: PathSegment[], plan: SalvagedPlan): SalvagedItem {
  if (!isRecord(data) || !Array.isArray(data.codons)) return invalid(data, path);
  const { codons, ...header } = data;
  const entries = codons.map((item, j): SalvagedEntry => {
    const itemPath = [...path, 'codons', j];
    if (isRecord(item) && 'loop' in item) {
      plan.nestedLoops.push(itemPath);
      return { kind: 'invalid', path: itemPath };
    }
    return salvageCodon(item, itemPath, plan);
  });
  const id = valid(Id, header.id);
  return {
    kind: 'loop',
    loop: valid(LoopHeader, header),
    ...(id === undefined ? {} : { id }),
    path,
    codons: entries,
  };
}

function salvageCodon(data: unknown, path: PathSegment[], plan: SalvagedPlan): SalvagedEntry {
  if (isRecord(data) && Array.isArray(data.sentinels)) {
    for (const [j, ref] of data.sentinels.entries()) {
      if (isRecord(ref) && !('file' in ref))
        plan.sentinelParts.push({ parts: salvageSentinel(ref), path: [...path, 'sentinels', j] });
    }
  }
  const salvaged = salvageObject(Codon, data);
  if (salvaged === undefined) return invalid(data, path);
  const list = isRecord(data) && Array.isArray(data.sentinels) ? data.sentinels : [];
  const sentinelRefs = list.flatMap((item, index) => {
    const ref = valid(CodonSentinelRef, item);
    return ref === undefined ? [] : [{ index, ref }];
  });
  return { kind: 'codon', codon: salvaged.value, path, dropped: salvaged.dropped, sentinelRefs };
}

function invalid(data: unknown, path: PathSegment[]): InvalidEntry {
  const id = isRecord(data) ? valid(Id, data.id) : undefined;
  return id === undefined ? { kind: 'invalid', path } : { kind: 'invalid', path, id };
}
