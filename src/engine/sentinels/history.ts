/**
 * Conversation history of a conversational sentinel: each call's user prompt and the model's
 * answer form one turn. Before each call the oldest turns are dropped until what is left fits both
 * limits. Tokens are estimated (about four characters a token, as the provider's counts go for
 * English and JSON): exact counts would need a call of their own. With no limit given, the last
 * DEFAULT_MAX_TURNS turns are kept, so memory stays bounded.
 */
export const DEFAULT_MAX_TURNS = 20;

export type Turn = { user: string; assistant: string };
export type HistoryLimits = { maxTurns?: number | undefined; maxTokens?: number | undefined };

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function turnTokens(turn: Turn): number {
  return estimateTokens(turn.user) + estimateTokens(turn.assistant);
}

/** The newest turns within the limits, oldest first (a new array; the input is not changed). */
export function trimHistory(turns: readonly Turn[], limits: HistoryLimits): Turn[] {
  const maxTurns =
    limits.maxTurns ?? (limits.maxTokens === undefined ? DEFAULT_MAX_TURNS : Number.POSITIVE_INFINITY);
  const maxTokens = limits.maxTokens ?? Number.POSITIVE_INFINITY;
  let tokens = 0;
  let keep = 0;
  for (let i = turns.length - 1; i >= 0 && keep < maxTurns; i--) {
    const cost = turnTokens(turns[i]!);
    if (tokens + cost > maxTokens) break;
    tokens += cost;
    keep++;
  }
  return turns.slice(turns.length - keep);
}

/** Messages for the Messages API: history turns, then the new user prompt. */
export function toMessages(
  history: readonly Turn[],
  user: string,
): Array<{ role: 'user' | 'assistant'; content: string }> {
  const messages: Array<{ role: 'user' | 'assistant'; content: string }> = [];
  for (const turn of history) {
    messages.push({ role: 'user', content: turn.user }, { role: 'assistant', content: turn.assistant });
  }
  messages.push({ role: 'user', content: user });
  return messages;
}
