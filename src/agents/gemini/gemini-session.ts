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
