/**
 * A controllable Anthropic-Messages provider for the model-based test: the harness says how the
 * next attempt of each codon behaves, and the provider plays it to the built-in agent.
 *
 * A request whose last user message holds no tool_result opens a new attempt of the codon its first
 * user message names (`Do <codonId>.`); a request with a tool_result is the follow-up of that
 * codon's latest attempt. Replies are built with the scripted provider's own builders.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomIds } from '../../../src/llm/mock-provider/ids.ts';
import {
  buildMessage,
  encodeSse,
  errorBodyOf,
  estimateInputTokens,
  streamEventsOf,
} from '../../../src/llm/mock-provider/response-builder.ts';
import type { ReplyTurn } from '../../../src/llm/mock-provider/script-schema.ts';
import { sendJson } from '../../../src/llm/mock-provider/server.ts';
import type { Behaviour } from './model.ts';

export type Attempt = {
  codonId: string;
  /** 1-based, per codon, over the provider's life. */
  n: number;
  behaviour: Behaviour;
  /** For `stuck`: the number the agent's Bash command sleeps (unique per attempt). */
  marker?: number;
  /** Global order of attempts. */
  seq: number;
  requests: number;
  at: number;
};

export type ModelProvider = {
  url: string;
  port: number;
  /** Queues the behaviour of the next attempt of `codonId` (attempts without one behave `ok`). */
  setNext(codonId: string, behaviour: Behaviour): void;
  /** Behaviours queued and not yet used. */
  pending(codonId: string): Behaviour[];
  attempts: Attempt[];
  /** Requests that named no codon or could not be parsed (should stay empty). */
  strays: string[];
  /** Closes every connection and stops listening. */
  stop(): Promise<void>;
};

/** The content an `ok` attempt writes into `<codonId>.txt`. */
export const fileContent = (codonId: string, n: number) => `${codonId} attempt ${n}`;

type Json = Record<string, unknown>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: Json) => (b?.type === 'text' && typeof b.text === 'string' ? b.text : ''))
    .filter(Boolean)
    .join('\n');
}

function hasToolResult(content: unknown): boolean {
  return Array.isArray(content) && content.some((b: Json) => b?.type === 'tool_result');
}

export async function startModelProvider(options: { markerBase?: number } = {}): Promise<ModelProvider> {
  const queues = new Map<string, Behaviour[]>();
  const counts = new Map<string, number>();
  const attempts: Attempt[] = [];
  const strays: string[] = [];
  // Unique sleep numbers: a random 6-digit prefix per provider, then a counter.
  let markerCounter = 0;
  const markerBase = options.markerBase ?? (100_000 + Math.floor(Math.random() * 899_999)) * 10_000;
  const open = new Set<ServerResponse>();

  const reply = (res: ServerResponse, request: Json, turn: ReplyTurn) => {
    const model = typeof request.model === 'string' ? request.model : 'claude-sonnet-4-5';
    const messages = Array.isArray(request.messages) ? request.messages : [];
    const message = buildMessage(turn, {
      model,
      inputTokens: estimateInputTokens({ system: request.system, messages, tools: request.tools as [] }),
      ids: randomIds,
    });
    if (request.stream !== true) return sendJson(res, 200, message);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    for (const event of streamEventsOf(message)) res.write(encodeSse(event));
    res.end();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: Json;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
    } catch {
      strays.push(`${req.method} ${path}: body is not JSON`);
      return sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'bad' } });
    }
    if (path === '/v1/messages/count_tokens') return sendJson(res, 200, { input_tokens: 100 });
    if (req.method !== 'POST' || path !== '/v1/messages') {
      strays.push(`${req.method} ${path}`);
      return sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: path } });
    }
    const messages = (Array.isArray(body.messages) ? body.messages : []) as Json[];
    const users = messages.filter((m) => m.role === 'user');
    const codonId = /\bDo ([\w#-]+)\./.exec(textOf(users[0]?.content))?.[1];
    if (!codonId) {
      strays.push(`no codon in: ${textOf(users[0]?.content).slice(0, 200)}`);
      return reply(res, body, { content: [{ text: 'I do not know this task.' }] });
    }
    const followUp = hasToolResult(users.at(-1)?.content);
    if (followUp) {
      const attempt = attempts.findLast((a) => a.codonId === codonId);
      if (attempt) attempt.requests += 1;
      return reply(res, body, { content: [{ text: `Done with ${codonId}.` }] });
    }
    const n = (counts.get(codonId) ?? 0) + 1;
    counts.set(codonId, n);
    const behaviour = queues.get(codonId)?.shift() ?? 'ok';
    const attempt: Attempt = { codonId, n, behaviour, seq: attempts.length + 1, requests: 1, at: Date.now() };
    attempts.push(attempt);
    switch (behaviour) {
      case 'ok':
        return reply(res, body, {
          content: [
            { text: `Writing ${codonId}.txt.` },
            {
              tool_use: {
                name: 'Write',
                input: { file_path: `${codonId}.txt`, content: fileContent(codonId, n) },
              },
            },
          ],
        });
      case 'stuck': {
        markerCounter += 1;
        attempt.marker = markerBase + markerCounter;
        return reply(res, body, {
          content: [
            { tool_use: { name: 'Bash', input: { command: `sleep ${attempt.marker}`, timeout: 600000 } } },
          ],
        });
      }
      case '500':
        return sendJson(res, 500, errorBodyOf({ error: { status: 500 } }, randomIds.requestId()));
      case '429':
        return sendJson(res, 429, errorBodyOf({ error: { status: 429 } }, randomIds.requestId()), {
          'retry-after': '0',
        });
    }
  };

  const server = createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    handle(req, res).catch((error: unknown) => {
      strays.push(`handler failed: ${String(error)}`);
      if (!res.headersSent) sendJson(res, 500, { type: 'error', error: { type: 'api_error', message: 'x' } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    attempts,
    strays,
    setNext(codonId, behaviour) {
      const queue = queues.get(codonId) ?? [];
      queue.push(behaviour);
      queues.set(codonId, queue);
    },
    pending: (codonId) => [...(queues.get(codonId) ?? [])],
    stop: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
