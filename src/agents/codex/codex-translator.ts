import { isAbsolute, relative, sep } from 'node:path';
import type { Usage } from '../../llm/schemas.ts';
import { localZone } from '../../llm/usage-limit/wall-time.ts';
import { parseJsonLine } from '../json-line.ts';
import type { Translator } from '../spawn-agent.ts';
import { ENDED_FROM_OUTSIDE, type StreamLine, toolResultLine } from '../stream-line.ts';
import { CodexEvent, type CodexItem, type CodexUsage } from './codex-events.ts';
import type { RecordedFailure, RecordedWait } from './codex-record.ts';
import { usageBetween } from './codex-session.ts';
import { codexUsageLimitOf } from './codex-usage-limit.ts';

/**
 * Codex retries a refused connection without end ("Reconnecting... waiting for network"), whatever its
 * retry settings say; at the second failure in a row (about 5 s) the run is given up as failed.
 */
export const CONNECT_FAILURES_MAX = 2;

export type CodexTranslatorOptions = {
  model: string;
  /**
   * This process's place in its codon run's chain of Codex processes (1 the first, then each follow-up
   * turn by resume): part of every tool call's id, as Codex numbers its items from `item_0` again in
   * each process of the same thread.
   */
  run?: number;
  /** The agent root: the paths of file changes inside it are given relative to it, as other agents give them. */
  root?: string;
  /** The session's token totals before this run (a resumed or forked session counts the earlier runs'). */
  before?: CodexUsage;
  /** Called once when the translator gave the run up (a provider it cannot reach): stop the process. */
  onGiveUp?: () => void;
  /**
   * The session's token totals as Codex recorded them (its rollout file): a failed turn reports none,
   * yet its answered requests cost tokens.
   */
  readTotals?: (sessionId: string) => CodexUsage | undefined;
  /**
   * The failed tool calls Codex recorded since the last read (its rollout file) whose run it never
   * printed: a patch refused before it ran, say (RolloutRecord).
   */
  readFailures?: (sessionId: string) => RecordedFailure[];
  /** The commands Codex recorded it stopped waiting for, as far as `readFailures` read (RolloutRecord). */
  recordedWaits?: () => readonly RecordedWait[];
  /** [Date.now] The clock a usage limit's reset ("try again at 3:53 PM") is read with. */
  now?: () => number;
  /** [this process's] The zone Codex printed local times in. */
  zone?: string;
};

/**
 * Codex's `exec --json` events as the engine's stream-json lines (src/agents/stream-line.ts): the
 * thread id as the session, tool items as tool_use and tool_result, the turn's usage (Codex reports it
 * per turn, for the whole session) as one assistant line without content, and a result at the turn's
 * end, with the HTTP status of an API error when its message gives it. Pure but for `onGiveUp` and
 * `readTotals`.
 */
export class CodexTranslator implements Translator {
  readonly #model: string;
  readonly #root: string | undefined;
  readonly #run: number;
  readonly #onGiveUp: (() => void) | undefined;
  readonly #readTotals: ((sessionId: string) => CodexUsage | undefined) | undefined;
  readonly #readFailures: ((sessionId: string) => RecordedFailure[]) | undefined;
  readonly #recordedWaits: (() => readonly RecordedWait[]) | undefined;
  readonly #now: () => number;
  readonly #zone: string;
  #before: CodexUsage | undefined;
  #session: string | undefined;
  /** Tool items whose tool_use was printed (on item.started), with their command when one. */
  readonly #open = new Map<string, string | undefined>();
  #lastMessage = '';
  #lastError: string | undefined;
  #connectFailures = 0;
  #turns = 0;
  /** Assistant lines printed: each gets an id of its own (Codex reports no response ids). */
  #items = 0;
  #ended = false;

  constructor(options: CodexTranslatorOptions) {
    this.#model = options.model;
    this.#root = options.root;
    this.#run = options.run ?? 1;
    this.#before = options.before;
    this.#onGiveUp = options.onGiveUp;
    this.#readTotals = options.readTotals;
    this.#readFailures = options.readFailures;
    this.#recordedWaits = options.recordedWaits;
    this.#now = options.now ?? Date.now;
    this.#zone = options.zone ?? localZone();
  }

  line(text: string): { ok: true; lines: StreamLine[] } | { ok: false; error: string } {
    const parsed = parseJsonLine(text, CodexEvent);
    if (parsed.ok) {
      if (this.#ended) return { ok: true, lines: [] };
      // What Codex recorded before this event goes first: its order in the turn.
      return { ok: true, lines: [...this.#recorded(parsed.value), ...this.#event(parsed.value)] };
    }
    // An event this version does not know is no error: newer CLIs add some.
    return isObject(parsed.json) ? { ok: true, lines: [] } : parsed;
  }

  end(): StreamLine[] {
    if (this.#ended) return [];
    const recorded = this.#recorded();
    this.#ended = true;
    const why = this.#lastError ? `: ${this.#lastError}` : '';
    return [...recorded, ...this.#failed(`Codex exited without finishing its turn${why}`)];
  }

  /**
   * The failed calls Codex recorded but never printed, as a call and its failed result each; read as
   * items start and end and as the turn ends (not on every line of Codex's output).
   */
  #recorded(event?: CodexEvent): StreamLine[] {
    if (!this.#session || !this.#readFailures) return [];
    if (event && !READ_RECORD_ON.has(event.type)) return [];
    return this.#readFailures(this.#session).flatMap((f) => [
      this.#toolUse(f.callId, { name: f.name, input: f.input }),
      toolResultLine(this.#callId(f.callId), f.error, true, this.#session),
    ]);
  }

  #event(event: CodexEvent): StreamLine[] {
    switch (event.type) {
      case 'thread.started':
        this.#session = event.thread_id;
        return [{ type: 'system', subtype: 'init', session_id: event.thread_id, model: this.#model }];
      case 'turn.started':
        return [];
      case 'item.started':
      case 'item.updated':
        return this.#started(inRoot(event.item, this.#root));
      case 'item.completed':
        return this.#completed(inRoot(event.item, this.#root));
      case 'turn.completed':
        return this.#turnCompleted(event.usage);
      case 'turn.failed':
        this.#ended = true;
        return this.#failed(event.error?.message ?? this.#lastError ?? 'the turn failed', TURN_FAILED);
      case 'error':
        return this.#error(event.message);
    }
  }

  #started(item: CodexItem): StreamLine[] {
    const call = toolCall(item);
    if (!call || this.#open.has(item.id)) return [];
    this.#open.set(item.id, typeof call.input.command === 'string' ? call.input.command : undefined);
    return [this.#toolUse(item.id, call)];
  }

  #completed(item: CodexItem): StreamLine[] {
    if (item.type === 'agent_message' && 'text' in item && typeof item.text === 'string') {
      this.#lastMessage = item.text;
      return [this.#assistant([{ type: 'text', text: item.text }])];
    }
    if (item.type === 'reasoning' && 'text' in item && typeof item.text === 'string') {
      return [this.#assistant([{ type: 'thinking', thinking: item.text }])];
    }
    const call = toolCall(item);
    if (!call) return [];
    const out = this.#open.delete(item.id) ? [] : [this.#toolUse(item.id, call)];
    const result = toolResult(item);
    out.push(toolResultLine(this.#callId(item.id), result.text, result.isError, this.#session));
    return out;
  }

  #turnCompleted(total: CodexUsage | undefined): StreamLine[] {
    this.#ended = true;
    this.#connectFailures = 0;
    const usage = total ? this.#turnUsage(total) : undefined;
    const out: StreamLine[] = this.#closeOpen(this.#stillRunning());
    if (usage) out.push(this.#usageLine(usage));
    out.push({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: this.#lastMessage,
      ...this.#sessionField(),
      ...(usage ? { usage } : {}),
    });
    return out;
  }

  #error(message: string): StreamLine[] {
    const retry = RECONNECTING.exec(message);
    if (!retry) {
      this.#lastError = message;
      return [];
    }
    const [, attempt, max, detail = message] = retry;
    if (attempt === undefined) {
      // A refused connection: Codex would wait for it forever.
      this.#connectFailures++;
      this.#lastError = detail;
      if (this.#connectFailures >= CONNECT_FAILURES_MAX) {
        this.#ended = true;
        this.#onGiveUp?.();
        return this.#failed(`the provider could not be reached (${detail})`);
      }
    }
    const status = statusOf(detail);
    return [
      {
        type: 'system',
        subtype: 'api_retry',
        attempt: attempt === undefined ? this.#connectFailures : Number(attempt),
        ...(max === undefined ? {} : { max_retries: Number(max) }),
        error: detail,
        ...(status === null ? {} : { error_status: status }),
      },
    ];
  }

  /** The turn's tokens as an assistant message of its own, without content. */
  #usageLine(usage: Usage): StreamLine {
    this.#turns++;
    return {
      type: 'assistant',
      ...this.#sessionField(),
      message: {
        id: `codex-${this.#session ?? 'turn'}-${this.#turns}`,
        model: this.#model,
        content: [],
        usage,
      },
    };
  }

  /** This run's usage in the engine's (Anthropic's) terms: cached and cache-written input apart. */
  #turnUsage(total: CodexUsage): Usage {
    const before = this.#before;
    this.#before = total;
    return usageBetween(total, before);
  }

  /**
   * A failed result, after the usage line of what the turn spent before it failed (when recorded).
   * `open` is the result given to calls still open: by default the run was ended from outside (a stop,
   * a halt, a timeout, a crash, or the translator giving up), not by Codex.
   */
  #failed(message: string, open = ENDED_FROM_OUTSIDE): StreamLine[] {
    const session = this.#session;
    const total = session ? this.#readTotals?.(session) : undefined;
    const usage = total ? this.#turnUsage(total) : undefined;
    const spent = usage && (usage.input_tokens > 0 || usage.output_tokens > 0) ? usage : undefined;
    const failure = this.#failure(message, spent);
    return [...this.#closeOpen(open), ...(spent ? [this.#usageLine(spent)] : []), failure];
  }

  /**
   * A result for each call still open as the turn ends (`text` says why, for each call's id and
   * command): Codex stops waiting for a command after a while (`yield_time_ms`, within bounds of its
   * own), and a turn that ends meanwhile never reports it again; a run ended from outside never
   * reports it either.
   */
  #closeOpen(text: string | ((command: string | undefined) => string)): StreamLine[] {
    const open = [...this.#open];
    this.#open.clear();
    return open.map(([id, command]) =>
      toolResultLine(this.#callId(id), typeof text === 'string' ? text : text(command), true, this.#session),
    );
  }

  /** Why a command is still open as Codex ends its turn, in what Codex recorded of it when it did. */
  #stillRunning(): (command: string | undefined) => string {
    const waits = [...(this.#recordedWaits?.() ?? [])];
    return (command) => {
      // Its own record when the command matches (Codex prints it quoted in a shell), else the next.
      const at = waits.findIndex((w) => w.command !== undefined && command?.includes(w.command));
      const [wait] = waits.splice(at === -1 ? 0 : at, 1);
      return wait ? stillRunningText(wait) : STILL_RUNNING;
    };
  }

  #failure(message: string, usage?: Usage): StreamLine {
    this.#ended = true;
    const retryAfter = retryAfterMs(message);
    const limit = codexUsageLimitOf(message, this.#now(), this.#zone);
    return {
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      result: message,
      api_error_status: statusOf(message),
      ...(retryAfter === undefined ? {} : { retry_after_ms: retryAfter }),
      ...(limit ? { usage_limit: { resets_at_ms: limit.resetsAtMs } } : {}),
      ...this.#sessionField(),
      ...(usage ? { usage } : {}),
    };
  }

  #toolUse(id: string, call: { name: string; input: Record<string, unknown> }): StreamLine {
    return this.#assistant([{ type: 'tool_use', id: this.#callId(id), name: call.name, input: call.input }]);
  }

  /**
   * A call's id as Ribosome gives it (`toolUseId`), unique within the execution: Codex's own (`item_1`,
   * or a recorded call's `call_...`) after the thread's id and this process's place in the chain, as
   * Codex's item ids repeat in every process (a follow-up turn, a re-run after a crash).
   */
  #callId(id: string): string {
    return `${this.#session ?? 'codex'}:${this.#run}:${id}`;
  }

  #assistant(content: Array<Record<string, unknown> & { type: string }>): StreamLine {
    return {
      type: 'assistant',
      ...this.#sessionField(),
      message: {
        id: `codex-${this.#session ?? 'session'}-item-${++this.#items}`,
        model: this.#model,
        content,
      },
    };
  }

  #sessionField(): { session_id?: string } {
    return this.#session ? { session_id: this.#session } : {};
  }
}

/** The events before which the rollout is read for failed calls: a call's start or end, the turn's end. */
const READ_RECORD_ON: ReadonlySet<CodexEvent['type']> = new Set([
  'item.started',
  'item.completed',
  'turn.completed',
  'turn.failed',
]);

/** The result of a call Codex had not finished when it ended its turn itself, without a record of it. */
export const STILL_RUNNING =
  'still running when Codex ended its turn: Codex had stopped waiting for it, and its result was not reported';

/** The same, in what Codex recorded: how long it waited and its words for the command. Pure. */
export function stillRunningText(wait: RecordedWait): string {
  const waited = wait.seconds === undefined ? '' : ` after ${Math.round(wait.seconds)} s`;
  return `still running when Codex ended its turn: Codex stopped waiting for it${waited} ("${wait.said}"), and its result was not reported`;
}

/** The result of a call still open when the turn failed (an API error, say). */
export const TURN_FAILED = 'still running when the turn failed; its result was not reported';

/** `Reconnecting... 1/2 (detail)`, or `Reconnecting... waiting for network (detail)` (no count). */
const RECONNECTING = /^Reconnecting\.\.\.\s+(?:(\d+)\/(\d+)|waiting for network)\s*(?:\((.*)\))?$/s;

/**
 * The HTTP status of an API error, as Codex words it: `unexpected status 503 ...`, `... last status:
 * 429 ...` (retries used up), `rate limit exceeded: ...` (a 429 in the stream), its text for a 500, or
 * the provider's raw error body (a 400, printed as it came). Null when the message gives none.
 */
export function statusOf(message: string): number | null {
  const stated = /(?:unexpected status|last status:)\s*(\d{3})\b/i.exec(message);
  if (stated?.[1]) return Number(stated[1]);
  if (/^rate limit exceeded\b/i.test(message)) return 429;
  if (/currently experiencing high demand/i.test(message)) return 500;
  try {
    const body: unknown = JSON.parse(message);
    if (isObject(body) && isObject(body.error)) return 400;
  } catch {
    // Not a body.
  }
  return null;
}

/** "Please try again in 1.5s" / "in 200ms", as OpenAI words a rate limit. */
function retryAfterMs(message: string): number | undefined {
  const m = /try again in (\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(message);
  if (!m?.[1]) return undefined;
  return Math.round(Number(m[1]) * (m[2]?.toLowerCase() === 'ms' ? 1 : 1000));
}

/**
 * A file change with its paths relative to `root` (Codex prints them absolute); a path outside it
 * stays absolute. Other items as they are. Pure.
 */
export function inRoot(item: CodexItem, root: string | undefined): CodexItem {
  if (!root || item.type !== 'file_change' || !('changes' in item) || !Array.isArray(item.changes))
    return item;
  const local = (path: string) => {
    const rel = relative(root, path);
    return !isAbsolute(path) || rel === '' || rel.split(sep)[0] === '..' || isAbsolute(rel) ? path : rel;
  };
  return { ...item, changes: item.changes.map((c) => ({ ...c, path: local(c.path) })) };
}

/** The tool call a Codex item stands for, or undefined for a message, reasoning or a note. */
function toolCall(item: CodexItem): { name: string; input: Record<string, unknown> } | undefined {
  switch (item.type) {
    case 'command_execution':
      return 'command' in item ? { name: 'command_execution', input: { command: item.command } } : undefined;
    case 'file_change': {
      const changes = 'changes' in item && Array.isArray(item.changes) ? item.changes : [];
      const first = changes[0];
      return { name: 'file_change', input: { ...(first ? { path: first.path } : {}), changes } };
    }
    case 'mcp_tool_call':
      return 'server' in item && 'tool' in item
        ? {
            name: `mcp__${item.server}__${item.tool}`,
            input: isObject(item.arguments) ? item.arguments : {},
          }
        : undefined;
    case 'web_search':
      return 'query' in item ? { name: 'web_search', input: { query: item.query } } : undefined;
    default:
      return undefined;
  }
}

function toolResult(item: CodexItem): { text: string; isError: boolean } {
  const status = 'status' in item && typeof item.status === 'string' ? item.status : 'completed';
  const failed = status === 'failed' || status === 'declined';
  switch (item.type) {
    case 'command_execution': {
      const code = 'exit_code' in item ? item.exit_code : undefined;
      const output =
        'aggregated_output' in item && typeof item.aggregated_output === 'string'
          ? item.aggregated_output
          : '';
      return { text: output, isError: failed || (typeof code === 'number' && code !== 0) };
    }
    case 'file_change': {
      const changes = 'changes' in item && Array.isArray(item.changes) ? item.changes : [];
      return { text: changes.map((c) => `${c.kind} ${c.path}`).join('\n'), isError: failed };
    }
    case 'mcp_tool_call': {
      const error = 'error' in item && isObject(item.error) ? item.error : undefined;
      if (error) return { text: String(error.message), isError: true };
      const result = 'result' in item ? item.result : undefined;
      return {
        text: mcpResultText(result),
        isError: failed || (isObject(result) && result.is_error === true),
      };
    }
    default:
      return { text: '', isError: failed };
  }
}

/**
 * What an MCP tool answered, as the other agents show it: the text of its content blocks, one a line;
 * a result without text (images, structured content alone) as its JSON.
 */
export function mcpResultText(result: unknown): string {
  if (result === undefined || result === null) return '';
  const content = isObject(result) && Array.isArray(result.content) ? result.content : [];
  const texts = content.flatMap((block: unknown) =>
    isObject(block) && block.type === 'text' && typeof block.text === 'string' ? [block.text] : [],
  );
  return texts.length > 0 && texts.length === content.length ? texts.join('\n') : JSON.stringify(result);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
