/**
 * The built-in agent's loop: send the conversation, stream the reply (one `assistant` line per
 * finished content block), run its tool calls (one `user` line per result), repeat until the model
 * stops asking for tools or the turn limit is hit. Retryable API failures are retried with an
 * `api_retry` line. I/O comes in through the options, so the loop runs in unit tests unchanged.
 */
import { randomUUID } from 'node:crypto';
import type { LlmError } from '../../llm/errors.ts';
import type { MessagesClient } from '../../llm/messages-client.ts';
import type { ContentBlock, Message, MessageParam, ToolDefinition } from '../../llm/schemas.ts';
import { appendPrompt, finalText, toolResult, toolUsesOf } from './conversation.ts';
import { resultLine } from './result-line.ts';
import { decideRetry, retryCategory } from './retry-policy.ts';
import type { ResultLine, StreamJsonLine } from './stream-json.ts';
import type { ToolOutcome } from './tools/tool.ts';
import { createUsageTally, type UsageTally } from './usage-tally.ts';

export type AgentLoopOptions = {
  client: MessagesClient;
  model: string;
  systemPrompt: string;
  maxTokens: number;
  maxTurns: number;
  maxRetries: number;
  sessionId: string;
  /** Earlier messages of a resumed session (empty for a new one). */
  history: MessageParam[];
  /** The turn's input: the prompt, or the messages that start a later turn. */
  prompt: string | readonly string[];
  /** Messages sent while the turn runs; each joins the next request, after the tool results. */
  takeMessages?: () => string[];
  /** Print each input message back (a `user` line with isReplay) as it is taken up. */
  replay?: boolean;
  /**
   * Cost and usage per model of the whole process, over several turns (the result's total_cost_usd
   * and modelUsage, as Claude Code counts them); the result's `usage` is this turn's alone.
   */
  processTally?: UsageTally;
  tools: ToolDefinition[];
  runTool(name: string, input: unknown, signal: AbortSignal): Promise<ToolOutcome>;
  emit(line: StreamJsonLine): void;
  /** Persists the conversation; awaited before the loop goes on, so a crash loses at most one step. */
  saveMessages(messages: MessageParam[]): Promise<void>;
  signal: AbortSignal;
  /** Waits before a retry (rejects when the signal aborts); injected so tests skip real backoffs. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** [now=Date.now] */
  now?: () => number;
};

type Ending =
  | { kind: 'done'; message: Message }
  | { kind: 'max_turns' }
  | { kind: 'api_error'; error: LlmError }
  | { kind: 'aborted' };

export async function runAgentLoop(options: AgentLoopOptions): Promise<ResultLine> {
  const now = options.now ?? Date.now;
  const started = now();
  const tally = createUsageTally();
  const processTally = options.processTally ?? tally;
  const base = () => ({ session_id: options.sessionId, uuid: randomUUID() });
  const replay = (texts: readonly string[]) => {
    if (!options.replay) return;
    for (const text of texts)
      options.emit({
        type: 'user',
        message: { role: 'user', content: [{ type: 'text', text }] },
        parent_tool_use_id: null,
        timestamp: new Date(now()).toISOString(),
        isReplay: true,
        ...base(),
      });
  };
  const prompts = typeof options.prompt === 'string' ? [options.prompt] : options.prompt;
  let messages = prompts.reduce(appendPrompt, options.history);
  replay(prompts);
  let turns = 0;
  let apiMs = 0;
  await options.saveMessages(messages);

  const ask = async (): Promise<{ ok: true; message: Message } | { ok: false; error: LlmError }> => {
    for (let attempt = 1; ; attempt++) {
      const callStarted = now();
      // Each block goes out when the next one completes, the last once the message has: a message's
      // usage is only complete after its last block (message_delta), and the engine counts spend
      // from the usage of the last line of each message (budgets are checked as it arrives).
      let held: { block: ContentBlock; message: Message; requestId: string | null } | undefined;
      const outcome = await options.client.stream(
        {
          model: options.model,
          max_tokens: options.maxTokens,
          system: options.systemPrompt,
          messages,
          tools: options.tools,
        },
        {
          signal: options.signal,
          onBlock: (block, { message, requestId }) => {
            if (held) emitBlock(held.block, held.message, held.requestId);
            held = { block, message, requestId };
          },
        },
      );
      if (held) {
        const final = outcome.ok ? outcome.value.message : held.message;
        emitBlock(held.block, { ...held.message, usage: final.usage }, held.requestId);
      }
      apiMs += now() - callStarted;
      if (outcome.ok) return { ok: true, message: outcome.value.message };
      const decision = decideRetry(outcome.error, attempt, options.maxRetries);
      if (!decision.retry || options.signal.aborted) return outcome;
      options.emit({
        type: 'system',
        subtype: 'api_retry',
        attempt,
        max_retries: options.maxRetries,
        retry_delay_ms: decision.delayMs,
        error_status: outcome.error.status,
        error: retryCategory(outcome.error),
        ...base(),
      });
      try {
        await options.sleep(decision.delayMs, options.signal);
      } catch {
        return outcome; // aborted while waiting
      }
    }
  };

  const emitBlock = (block: ContentBlock, message: Message, requestId: string | null) => {
    options.emit({
      type: 'assistant',
      message: { ...message, content: [block] },
      parent_tool_use_id: null,
      request_id: requestId,
      ...base(),
    });
  };

  const run = async (): Promise<Ending> => {
    for (;;) {
      if (options.signal.aborted) return { kind: 'aborted' };
      if (turns >= options.maxTurns) return { kind: 'max_turns' };
      const reply = await ask();
      if (!reply.ok)
        return options.signal.aborted ? { kind: 'aborted' } : { kind: 'api_error', error: reply.error };
      turns++;
      const { message } = reply;
      tally.add(message.model, message.usage);
      if (processTally !== tally) processTally.add(message.model, message.usage);
      messages = [...messages, { role: 'assistant', content: message.content }];
      await options.saveMessages(messages);

      const toolUses = toolUsesOf(message.content);
      if (toolUses.length === 0) return { kind: 'done', message };
      const results = [];
      for (const toolUse of toolUses) {
        // Left unanswered, the remaining calls get an "interrupted" result if the session is resumed.
        if (options.signal.aborted) return { kind: 'aborted' };
        const outcome = await options.runTool(toolUse.name, toolUse.input, options.signal);
        const block = toolResult(toolUse.id, outcome.content, outcome.isError);
        results.push(block);
        options.emit({
          type: 'user',
          message: { role: 'user', content: [block] },
          parent_tool_use_id: null,
          timestamp: new Date(now()).toISOString(),
          ...base(),
        });
      }
      // What was sent meanwhile reaches the model with the results (Claude Code appends it to them).
      const sent = options.takeMessages?.() ?? [];
      replay(sent);
      const texts = sent.map((text) => ({ type: 'text' as const, text }));
      messages = [...messages, { role: 'user', content: [...results, ...texts] }];
      await options.saveMessages(messages);
    }
  };

  const ending = await run();
  const common = {
    sessionId: options.sessionId,
    durationMs: now() - started,
    durationApiMs: apiMs,
    numTurns: turns,
    totals: { ...processTally.totals(), usage: tally.totals().usage },
  };
  switch (ending.kind) {
    case 'done':
      return resultLine({
        ...common,
        subtype: 'success',
        isError: false,
        result: finalText(ending.message.content),
        stopReason: ending.message.stop_reason,
        terminalReason: 'completed',
      });
    case 'max_turns':
      return resultLine({
        ...common,
        subtype: 'error_max_turns',
        isError: true,
        stopReason: 'tool_use',
        terminalReason: 'max_turns',
        errors: [`Reached maximum number of turns (${options.maxTurns})`],
      });
    case 'aborted':
      return resultLine({
        ...common,
        subtype: 'error_during_execution',
        isError: true,
        stopReason: null,
        terminalReason: 'aborted',
        errors: ['The run was interrupted'],
      });
    case 'api_error': {
      // Claude Code reports an API failure as a synthetic assistant message plus an is_error result.
      const text = `API Error: ${ending.error.message}`;
      options.emit({
        type: 'assistant',
        message: {
          id: randomUUID(),
          type: 'message',
          role: 'assistant',
          model: '<synthetic>',
          content: [{ type: 'text', text }],
          stop_reason: 'stop_sequence',
          stop_sequence: '',
          usage: {
            input_tokens: 0,
            output_tokens: 0,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
        },
        parent_tool_use_id: null,
        request_id: ending.error.requestId,
        error: retryCategory(ending.error),
        ...base(),
      });
      return resultLine({
        ...common,
        subtype: 'success',
        isError: true,
        apiErrorStatus: ending.error.status,
        retryAfterMs: ending.error.retryAfterMs,
        usageLimit: ending.error.usageLimit,
        result: text,
        stopReason: 'stop_sequence',
        terminalReason: 'completed',
      });
    }
  }
}
