/**
 * A cassette as a scripted provider's script (`ribosome cassette to-script`): one track per caller and
 * system prompt, matched as the scripted provider matches (the request views of src/llm/mock-provider),
 * its turns the recorded answers read back (answer-blocks.ts). The scripted provider's own encoders
 * then speak each API, so a person can edit the turns and run the plan on the script. Pure.
 */
import { GeminiRequestSchema, geminiViewOf } from '../mock-provider/gemini-view.ts';
import { type RequestView, viewOf, WireRequestSchema } from '../mock-provider/request-view.ts';
import { ResponsesRequestSchema, responsesViewOf } from '../mock-provider/responses-view.ts';
import type { ScriptInput, Turn } from '../mock-provider/script-schema.ts';
import { turnOf } from './answer-blocks.ts';
import { callerKey, callerName } from './caller.ts';
import type { Cassette, ExchangeLine } from './schema.ts';

/** The request's view (system, first user text), as the scripted provider would see it. */
function viewOfExchange(exchange: ExchangeLine): RequestView | undefined {
  const body = exchange.request;
  if (exchange.api === 'anthropic') {
    const parsed = WireRequestSchema.safeParse(body);
    return parsed.success ? viewOf(parsed.data, {}) : undefined;
  }
  if (exchange.api === 'openai-responses') {
    const parsed = ResponsesRequestSchema.safeParse(body);
    return parsed.success ? responsesViewOf(parsed.data, {}) : undefined;
  }
  if (exchange.api === 'gemini') {
    const parsed = GeminiRequestSchema.safeParse(body);
    return parsed.success ? geminiViewOf(parsed.data, exchange.model ?? '', {}) : undefined;
  }
  return undefined;
}

/**
 * A stable piece of a text to match on: its first line, up to 80 characters, cut before a placeholder
 * of the recording's paths or times (`<agentRoot>`), which the live request holds as a real path.
 */
export function snippet(text: string): string | undefined {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  const cut = line.split('<')[0] ?? '';
  const out = cut.slice(0, 80).trim();
  return out.length >= 4 ? out : undefined;
}

type Track = { name: string; match: Record<string, string>; turns: Turn[]; sentinel: boolean };

/**
 * The exchanges a script plays: a caller that started over with the same attempt (a codon run again
 * after a crash, or after a rollback) asks its first question again, and only what it asked from then
 * on is kept. A retry (the next attempt) keeps what came before: a script replays the failure too.
 */
export function lastStarts(exchanges: readonly ExchangeLine[]): { kept: ExchangeLine[]; dropped: number } {
  const firsts = new Map<string, { fingerprint: string; attempt: number | undefined }>();
  const startAt = new Map<string, number>();
  exchanges.forEach((e, index) => {
    const key = callerKey(e.caller);
    const first = firsts.get(key);
    if (!first) firsts.set(key, { fingerprint: e.fingerprint, attempt: e.attempt });
    else if (first.fingerprint === e.fingerprint && first.attempt === e.attempt) startAt.set(key, index);
  });
  const kept = exchanges.filter((e, index) => index >= (startAt.get(callerKey(e.caller)) ?? 0));
  return { kept, dropped: exchanges.length - kept.length };
}

export function cassetteToScript(cassette: Cassette): { script: ScriptInput; notes: string[] } {
  const tracks: Track[] = [];
  const notes: string[] = [];
  const byKey = new Map<string, Track>();
  const { kept, dropped } = lastStarts(cassette.exchanges);
  if (dropped > 0)
    notes.push(
      `${dropped} exchanges left out: their caller started over (a crash, a rollback), and the script keeps its last start`,
    );
  for (const exchange of kept) {
    if (!exchange.api) continue; // count_tokens and other paths: the scripted provider answers them itself
    const turn = turnOf(exchange);
    if (!turn) {
      notes.push(
        `exchange ${exchange.seq} (${callerName(exchange.caller)}): its answer could not be read; left out`,
      );
      continue;
    }
    const view = viewOfExchange(exchange);
    const system = view ? snippet(view.system) : undefined;
    const sentinel = exchange.caller?.kind === 'sentinel';
    const firstUser = view && !sentinel ? snippet(view.firstUser) : undefined;
    const match: Record<string, string> = {
      api: exchange.api,
      ...(system ? { system } : {}),
      ...(firstUser ? { firstUser } : {}),
    };
    const key = JSON.stringify(match);
    let track = byKey.get(key);
    if (!track) {
      const base = exchange.caller ? `${exchange.caller.kind}-${exchange.caller.id}` : 'other';
      const taken = tracks.filter((t) => t.name === base || t.name.startsWith(`${base}-`)).length;
      track = { name: taken === 0 ? base : `${base}-${taken + 1}`, match, turns: [], sentinel };
      byKey.set(key, track);
      tracks.push(track);
    }
    track.turns.push(turn);
  }
  // The scripted provider takes the first track that matches: sentinels (matched by their system
  // prompt) before agents, and a longer first-user text before one it may contain.
  const ordered = [...tracks].sort(
    (a, b) =>
      Number(b.sentinel) - Number(a.sentinel) ||
      (b.match.firstUser?.length ?? 0) - (a.match.firstUser?.length ?? 0),
  );
  return {
    script: { tracks: ordered.map(({ name, match, turns }) => ({ name, match, turns })) },
    notes,
  };
}
