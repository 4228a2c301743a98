import type { StreamLine } from '../agents/stream-line.ts';
import type { EventInput } from '../core/protocol/index.ts';
import { costOf } from '../llm/pricing.ts';
import type { Usage } from '../llm/schemas.ts';
import type { UsageLimitHit } from './outcome/failure.ts';
import { retryAfterHint } from './retries/retry-after-hint.ts';

/** What one stream-json line means for the engine. */
export type MappedOutput =
  | {
      kind: 'event';
      event: {
        [T in 'assistant.action' | 'tool.result' | 'token.usage' | 'info']: { type: T; data: EventInput<T> };
      }['assistant.action' | 'tool.result' | 'token.usage' | 'info'];
    }
  | { kind: 'cost'; amount: number }
  | { kind: 'messageCount'; count: number }
  | { kind: 'session'; agentSessionId: string }
  | {
      kind: 'result';
      isError: boolean;
      apiErrorStatus: number | null;
      message: string;
      finalCost: number | undefined;
      /** How long the provider asked to wait, when the agent says (docs/unattended.md#automatic-retries-and-the-fallback-model). */
      retryAfterMs?: number;
      /** The run ended on a usage limit (docs/unattended.md#usage-limits); `resetsAt` epoch ms when known. */
      usageLimit?: UsageLimitHit;
    };

type UsageField =
  | 'input_tokens'
  | 'output_tokens'
  | 'cache_creation_input_tokens'
  | 'cache_read_input_tokens';
const USAGE_FIELDS: readonly UsageField[] = [
  'input_tokens',
  'output_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
];
const NO_USAGE: Record<UsageField, number> = {
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

type Totals = { input: number; output: number; cacheCreation: number; cacheRead: number; cost: number };

export type StreamMapperOptions = {
  codonId: string;
  /** Longest tool result kept in a tool.result event. */
  maxResultChars: number;
  /** [true] False for an agent that reports no cost: totals priced from the table, marked costEstimated. */
  costReported?: boolean;
  /** The codon's MCP servers: a call named after another (a tool it was never offered) is not one of theirs. Absent: any. */
  mcpServers?: readonly string[];
  now?: () => number;
};

/**
 * Turns the agent's stream-json into protocol events and state changes. Claude Code prints one
 * `assistant` line per content block, all with the same message id and usage; a message's usage is
 * counted when its first line shows it, and a later line of the same message adds only what it shows
 * beyond that. So the spend is journaled as it comes, before the tools the message asks for run: a
 * server killed meanwhile keeps it (trial 17b L9). `token.usage` carries the codon's running totals;
 * the last one of a codon is the authoritative figure.
 */
export class StreamMapper {
  readonly #options: StreamMapperOptions;
  readonly #now: () => number;
  readonly #tools = new Map<string, { name: string; startedAt: number }>();
  /** The message whose usage was counted last, and how much of it was. */
  #counted: { id: string; usage: Record<UsageField, number> } | undefined;
  #messages = 0;
  #totals: Totals = { input: 0, output: 0, cacheCreation: 0, cacheRead: 0, cost: 0 };
  /** The totals at the end of the agent's previous turn: a result's usage is its own turn's. */
  #beforeTurn: Totals = { input: 0, output: 0, cacheCreation: 0, cacheRead: 0, cost: 0 };
  #model: string | undefined;

  constructor(options: StreamMapperOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /**
   * An info event for each of the codon's MCP servers the agent says did not start (Claude Code's init
   * lists `{name, status}`: failed, needs-auth): its tools are not offered, and the agent goes on
   * without them, so the person watching should hear it.
   */
  #unstarted(servers: readonly unknown[] | undefined): MappedOutput[] {
    const known = this.#options.mcpServers ?? [];
    const out: MappedOutput[] = [];
    for (const entry of servers ?? []) {
      if (typeof entry !== 'object' || entry === null) continue;
      const { name, status } = entry as { name?: unknown; status?: unknown };
      if (typeof name !== 'string' || !known.includes(name)) continue;
      if (status === 'connected' || status === 'pending' || typeof status !== 'string') continue;
      const message = `MCP server "${name}" did not start for the agent (${status}): its tools are not offered, and the agent goes on without them (\`ribosome doctor --plan\` starts it and says why)`;
      out.push({ kind: 'event', event: { type: 'info', data: { message } } });
    }
    return out;
  }

  /** The MCP fields of a call to one of the codon's servers' tools; nothing for any other name. */
  #mcp(toolName: string): { mcpServer?: string; mcpTool?: string } {
    const fields = mcpFields(toolName);
    const known = this.#options.mcpServers;
    return fields.mcpServer !== undefined && known !== undefined && !known.includes(fields.mcpServer)
      ? {}
      : fields;
  }

  map(line: StreamLine): MappedOutput[] {
    const codonId = this.#options.codonId;
    switch (line.type) {
      case 'system':
        if (line.subtype === 'init' && line.session_id) {
          if (line.model) this.#model = line.model;
          return [{ kind: 'session', agentSessionId: line.session_id }, ...this.#unstarted(line.mcp_servers)];
        }
        if (line.subtype === 'api_retry') {
          const message = `agent retrying the LLM call (attempt ${line.attempt ?? '?'} of ${line.max_retries ?? '?'}) after ${line.error ?? 'an error'}${line.error_status ? ` (HTTP ${line.error_status})` : ''}`;
          return [{ kind: 'event', event: { type: 'info', data: { message } } }];
        }
        return [];
      case 'assistant': {
        const model = line.message.model ?? this.#model ?? 'unknown';
        const out = line.message.usage ? this.#count(line.message.id, model, line.message.usage) : [];
        for (const block of line.message.content) {
          if (block.type === 'text' && 'text' in block && typeof block.text === 'string') {
            out.push({
              kind: 'event',
              event: { type: 'assistant.action', data: { codonId, action: 'message', content: block.text } },
            });
          } else if (block.type === 'thinking' && 'thinking' in block && typeof block.thinking === 'string') {
            out.push({
              kind: 'event',
              event: {
                type: 'assistant.action',
                data: { codonId, action: 'thinking', content: block.thinking },
              },
            });
          } else if (
            block.type === 'tool_use' &&
            'name' in block &&
            typeof block.name === 'string' &&
            'id' in block &&
            typeof block.id === 'string'
          ) {
            const input =
              'input' in block && typeof block.input === 'object' && block.input !== null
                ? (block.input as Record<string, unknown>)
                : {};
            this.#tools.set(block.id, { name: block.name, startedAt: this.#now() });
            out.push({
              kind: 'event',
              event: {
                type: 'assistant.action',
                data: {
                  codonId,
                  action: 'tool_use',
                  content: `${block.name} ${summarize(input, mcpFields(block.name).mcpServer !== undefined)}`,
                  toolName: block.name,
                  toolInput: input,
                  toolUseId: block.id,
                  ...this.#mcp(block.name),
                },
              },
            });
          }
        }
        return out;
      }
      case 'user': {
        const out: MappedOutput[] = [];
        if (typeof line.message.content === 'string') return out;
        for (const block of line.message.content) {
          if (
            block.type !== 'tool_result' ||
            !('tool_use_id' in block) ||
            typeof block.tool_use_id !== 'string'
          )
            continue;
          const tool = this.#tools.get(block.tool_use_id);
          this.#tools.delete(block.tool_use_id);
          const text = resultText('content' in block ? block.content : undefined);
          const max = this.#options.maxResultChars;
          out.push({
            kind: 'event',
            event: {
              type: 'tool.result',
              data: {
                codonId,
                toolUseId: block.tool_use_id,
                toolName: tool?.name ?? 'unknown',
                result: text.length > max ? text.slice(0, max) : text,
                truncated: text.length > max,
                originalLength: text.length,
                executionTimeMs: tool ? Math.max(0, this.#now() - tool.startedAt) : 0,
                isError: 'is_error' in block && block.is_error === true,
                ...(tool ? this.#mcp(tool.name) : {}),
              },
            },
          });
        }
        return out;
      }
      case 'result': {
        const out: MappedOutput[] = [];
        // A turn's messages end with it: the next turn's are new ones, though a CLI run once per turn
        // (Codex, Gemini CLI by resume) numbers its message ids from 1 again in each process.
        this.#counted = undefined;
        if (line.session_id) out.push({ kind: 'session', agentSessionId: line.session_id });
        // The agent's own totals are authoritative where it reports them: its usage is the turn's
        // (a process that ran several turns, for messages sent to it, adds them up), its cost the
        // whole process's (Claude Code's total_cost_usd).
        if (line.usage || line.total_cost_usd !== undefined) {
          const u = line.usage;
          const before = this.#beforeTurn;
          const totals: Totals = u
            ? {
                input: before.input + u.input_tokens,
                output: before.output + u.output_tokens,
                cacheCreation: before.cacheCreation + (u.cache_creation_input_tokens ?? 0),
                cacheRead: before.cacheRead + (u.cache_read_input_tokens ?? 0),
                cost: line.total_cost_usd ?? this.#totals.cost,
              }
            : { ...this.#totals, cost: line.total_cost_usd ?? this.#totals.cost };
          this.#totals = totals;
          this.#beforeTurn = totals;
          // Extra fields of newer CLIs are dropped when the event is validated on publish.
          const modelUsage = line.modelUsage;
          out.push({ kind: 'event', event: { type: 'token.usage', data: this.#usageData(modelUsage) } });
        }
        out.push({
          kind: 'result',
          isError: line.is_error,
          apiErrorStatus: line.api_error_status ?? null,
          // A run that failed without a result text says why in `errors` (an MCP server that could not start).
          message: line.result ?? (line.errors?.length ? line.errors.join('; ') : line.subtype),
          finalCost: line.total_cost_usd,
          ...retryAfterOf(line.retry_after_ms, line.result),
          ...(line.usage_limit
            ? {
                usageLimit:
                  line.usage_limit.resets_at_ms == null ? {} : { resetsAt: line.usage_limit.resets_at_ms },
              }
            : {}),
        });
        return out;
      }
    }
  }

  /** Call when the stream ends. Every message's usage is counted as it comes: nothing is left. */
  finish(): MappedOutput[] {
    return [];
  }

  get totalCost(): number {
    return this.#totals.cost;
  }

  /** A message's usage as a line shows it: what it adds to what was counted of the message. */
  #count(id: string, model: string, usage: Usage): MappedOutput[] {
    const fresh = id !== this.#counted?.id;
    const before = fresh ? NO_USAGE : (this.#counted?.usage ?? NO_USAGE);
    const now = {
      input_tokens: Math.max(before.input_tokens, usage.input_tokens),
      output_tokens: Math.max(before.output_tokens, usage.output_tokens),
      cache_creation_input_tokens: Math.max(
        before.cache_creation_input_tokens,
        usage.cache_creation_input_tokens ?? 0,
      ),
      cache_read_input_tokens: Math.max(before.cache_read_input_tokens, usage.cache_read_input_tokens ?? 0),
    };
    this.#counted = { id, usage: now };
    this.#model = model;
    const grew = USAGE_FIELDS.some((field) => now[field] > before[field]);
    if (!fresh && !grew) return [];
    const cost = Math.max(0, costOf(model, now).usd - costOf(model, before).usd);
    this.#totals = {
      input: this.#totals.input + now.input_tokens - before.input_tokens,
      output: this.#totals.output + now.output_tokens - before.output_tokens,
      cacheCreation:
        this.#totals.cacheCreation + now.cache_creation_input_tokens - before.cache_creation_input_tokens,
      cacheRead: this.#totals.cacheRead + now.cache_read_input_tokens - before.cache_read_input_tokens,
      cost: this.#totals.cost + cost,
    };
    if (fresh) this.#messages++;
    return [
      { kind: 'event', event: { type: 'token.usage', data: this.#usageData(undefined) } },
      ...(cost > 0 ? [{ kind: 'cost' as const, amount: cost }] : []),
      ...(fresh ? [{ kind: 'messageCount' as const, count: this.#messages }] : []),
    ];
  }

  #usageData(modelUsage: EventInput<'token.usage'>['modelUsage']): EventInput<'token.usage'> {
    const t = this.#totals;
    return {
      codonId: this.#options.codonId,
      inputTokens: t.input,
      outputTokens: t.output,
      cacheCreationTokens: t.cacheCreation,
      cacheReadTokens: t.cacheRead,
      totalCost: t.cost,
      ...(this.#model ? { modelId: this.#model } : {}),
      ...(modelUsage ? { modelUsage } : {}),
      ...(this.#options.costReported === false ? { costEstimated: true as const } : {}),
    };
  }
}

function retryAfterOf(field: number | null | undefined, message: string | undefined) {
  const ms = retryAfterHint(field, message);
  return ms === undefined ? {} : { retryAfterMs: ms };
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((c) =>
        typeof c === 'object' && c !== null && 'text' in c && typeof c.text === 'string' ? c.text : '',
      )
      .join('\n');
  }
  return '';
}

/** A one-line description of a tool call for activity views. */
/** A call's input in a line: its path, command or pattern; an MCP tool's (any shape) as compact JSON. */
function summarize(input: Record<string, unknown>, mcp: boolean): string {
  const cut = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);
  // filePath: opencode's file tools.
  for (const key of ['file_path', 'filePath', 'command', 'pattern', 'path', 'url']) {
    const value = input[key];
    if (typeof value === 'string') return cut(value);
  }
  return mcp && Object.keys(input).length > 0 ? cut(JSON.stringify(input)) : '';
}

/**
 * The server and tool of an MCP tool's call, which every agent's translator names
 * `mcp__<server>__<tool>` (a server's name never holds `__`, docs/mcp.md); nothing for another tool.
 */
export function mcpFields(toolName: string): { mcpServer?: string; mcpTool?: string } {
  const match = /^mcp__([A-Za-z0-9][A-Za-z0-9_-]*?)__(.+)$/.exec(toolName);
  return match?.[1] && match[2] ? { mcpServer: match[1], mcpTool: match[2] } : {};
}
