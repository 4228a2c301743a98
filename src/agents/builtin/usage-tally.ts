/** Sums token usage per model and prices it, into the result line's usage and modelUsage. Pure. */
import { costOf } from '../../llm/pricing.ts';
import type { Usage } from '../../llm/schemas.ts';
import type { ModelUsage, ResultUsage } from './stream-json.ts';

export type UsageTotals = {
  usage: ResultUsage;
  modelUsage: Record<string, ModelUsage>;
  totalCostUsd: number;
  /** True when a model was missing from the pricing table and priced with the fallback. */
  estimated: boolean;
};

export type UsageTally = { add(model: string, usage: Usage): void; totals(): UsageTotals };

export function createUsageTally(): UsageTally {
  const byModel = new Map<string, ModelUsage>();
  let estimated = false;

  return {
    add(model, usage) {
      const cost = costOf(model, usage);
      estimated ||= cost.estimated;
      const entry = byModel.get(model) ?? {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadInputTokens: 0,
        cacheCreationInputTokens: 0,
        webSearchRequests: 0,
        costUSD: 0,
      };
      entry.inputTokens += usage.input_tokens;
      entry.outputTokens += usage.output_tokens;
      entry.cacheReadInputTokens += usage.cache_read_input_tokens ?? 0;
      entry.cacheCreationInputTokens += usage.cache_creation_input_tokens ?? 0;
      entry.costUSD += cost.usd;
      byModel.set(model, entry);
    },
    totals() {
      const models = [...byModel.values()];
      const sum = (pick: (entry: ModelUsage) => number) =>
        models.reduce((total, entry) => total + pick(entry), 0);
      return {
        usage: {
          input_tokens: sum((entry) => entry.inputTokens),
          cache_creation_input_tokens: sum((entry) => entry.cacheCreationInputTokens),
          cache_read_input_tokens: sum((entry) => entry.cacheReadInputTokens),
          output_tokens: sum((entry) => entry.outputTokens),
          server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
          service_tier: 'standard',
        },
        modelUsage: Object.fromEntries([...byModel].map(([model, entry]) => [model, { ...entry }])),
        totalCostUsd: sum((entry) => entry.costUSD),
        estimated,
      };
    },
  };
}
