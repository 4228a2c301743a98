import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { sessionFileOf } from './gemini-cli.ts';

/** Token counts by model, in Gemini CLI's stream-json stats names (what the translator prices). */
export type SessionSpend = Record<
  string,
  { input_tokens: number; output_tokens: number; cached: number; total_tokens: number }
>;

const Tokens = z.looseObject({
  input: z.number().default(0),
  output: z.number().default(0),
  cached: z.number().default(0),
  total: z.number().default(0),
});
const Message = z.looseObject({
  id: z.string(),
  type: z.string(),
  model: z.string().optional(),
  tokens: Tokens.nullish(),
});
type Message = z.infer<typeof Message>;
const SetRecord = z.looseObject({
  $set: z.looseObject({ messages: z.array(z.unknown()).optional() }),
});

/**
 * What a Gemini CLI session file records as spent (`.gemini/tmp/<project>/chats/session-*.jsonl`), by
 * model: the tokens of every model response in it. Gemini CLI writes each response with its tokens
 * as it ends, before the tools it asks for run, so a run stopped or killed in a tool call is counted;
 * its stream-json stats come only at the run's end. The file is a log: a header, message records (a
 * later record of the same id replaces the earlier: a response gets its tool calls), and `$set`
 * records (`messages` replaces them all). A forked session's file starts with copies of its parent's
 * messages. Pure; lines it cannot read are skipped.
 */
export function spendOfSession(text: string): SessionSpend {
  const messages = new Map<string, Message>();
  const add = (value: unknown) => {
    const message = Message.safeParse(value);
    if (message.success) messages.set(message.data.id, message.data);
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      continue; // Torn by a kill mid-write.
    }
    const set = SetRecord.safeParse(json);
    if (set.success) {
      if (set.data.$set.messages) {
        messages.clear();
        for (const value of set.data.$set.messages) add(value);
      }
      continue;
    }
    add(json);
  }
  const spend: SessionSpend = {};
  for (const message of messages.values()) {
    const tokens = message.tokens;
    if (message.type !== 'gemini' || !tokens || tokens.total <= 0) continue;
    const model = message.model ?? 'unknown';
    const sum = spend[model] ?? { input_tokens: 0, output_tokens: 0, cached: 0, total_tokens: 0 };
    spend[model] = {
      input_tokens: sum.input_tokens + tokens.input,
      output_tokens: sum.output_tokens + tokens.output,
      cached: sum.cached + tokens.cached,
      total_tokens: sum.total_tokens + tokens.total,
    };
  }
  return spend;
}

/** What a session file records as spent; undefined when it cannot be read. */
export function spendOfFile(path: string): SessionSpend | undefined {
  try {
    return spendOfSession(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** What session `id` under `home` records as spent; undefined when it has no file. */
export function sessionSpend(home: string, id: string): SessionSpend | undefined {
  const file = sessionFileOf(home, id);
  return file ? spendOfFile(file) : undefined;
}

/** What `now` records beyond `before` (the session as a run found it), by model. Pure. */
export function spentSince(now: SessionSpend, before: SessionSpend | undefined): SessionSpend {
  const out: SessionSpend = {};
  for (const [model, n] of Object.entries(now)) {
    const b = before?.[model];
    const diff = {
      input_tokens: Math.max(0, n.input_tokens - (b?.input_tokens ?? 0)),
      output_tokens: Math.max(0, n.output_tokens - (b?.output_tokens ?? 0)),
      cached: Math.max(0, n.cached - (b?.cached ?? 0)),
      total_tokens: Math.max(0, n.total_tokens - (b?.total_tokens ?? 0)),
    };
    if (diff.total_tokens > 0) out[model] = diff;
  }
  return out;
}

/** How a shell command ended, as Gemini CLI told the model (its stream-json says only "success"). */
export type ShellEnd = { exitCode: number | null; signal: string | null };

const EXIT_CODE = /^Exit Code: (-?\d+)$/m;
const SIGNAL = /^Signal: (\S+)$/m;

/**
 * The end of shell call `toolId` in a session file's text: the `Exit Code:` and `Signal:` lines of the
 * function response Gemini CLI recorded for it (what the model reads); undefined when the file holds
 * no response for that call yet, or one without either line. Pure; torn lines are skipped.
 */
export function shellEndOfSession(text: string, toolId: string): ShellEnd | undefined {
  const marker = JSON.stringify(toolId);
  let found: ShellEnd | undefined;
  for (const line of text.split('\n')) {
    if (!line.includes(marker) || !line.includes('functionResponse')) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      continue;
    }
    for (const output of responseOutputs(json, toolId)) {
      const code = EXIT_CODE.exec(output)?.[1];
      const signal = SIGNAL.exec(output)?.[1];
      const killed = signal !== undefined && signal !== '(none)' ? signal : null;
      if (code !== undefined || killed)
        found = { exitCode: code === undefined ? null : Number(code), signal: killed };
    }
  }
  return found;
}

/** Every `functionResponse.response.output` for `toolId` anywhere in a record. Pure. */
function responseOutputs(value: unknown, toolId: string): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => responseOutputs(v, toolId));
  if (typeof value !== 'object' || value === null) return [];
  const record = value as Record<string, unknown>;
  const response = record.functionResponse as { id?: unknown; response?: { output?: unknown } } | undefined;
  if (response?.id === toolId && typeof response.response?.output === 'string')
    return [response.response.output];
  return Object.values(record).flatMap((v) => responseOutputs(v, toolId));
}

/** How shell call `toolId` of session `id` under `home` ended, as its session file says; undefined else. */
export function sessionShellEnd(home: string, id: string, toolId: string): ShellEnd | undefined {
  const file = sessionFileOf(home, id);
  if (!file) return undefined;
  try {
    return shellEndOfSession(readFileSync(file, 'utf8'), toolId);
  } catch {
    return undefined;
  }
}
