/**
 * Plays a script: routes each request to its track and hands out that track's next turn. Pure state,
 * no I/O; one player per provider, so every caller of a track shares its cursor.
 */
import type { RequestView } from './request-view.ts';
import type { PlayedUsageLimit, Script, TrackMatch, Turn, UsageLimitTurn } from './script-schema.ts';

export const DEFAULT_TRACK = 'default';

export type PlayedTurn = {
  track: string;
  /** A usage limit with its reset fixed; any other turn as written. */
  turn: Exclude<Turn, UsageLimitTurn> | PlayedUsageLimit;
  /** 0-based position in the track's (repeat-expanded) turns; null when the track was exhausted. */
  position: number | null;
};

/** How many turns each track has played, by track name (the default track as `default`). */
export type TrackPositions = Record<string, number>;
/** When the usage limit a track is held at resets (epoch ms), by track name: kept with the positions. */
export type TrackLimits = Record<string, number>;

export type ScriptPlayer = {
  next(view: RequestView): PlayedTurn;
  /** Where each track that does not loop is: what a later player given them as `start` goes on from. */
  positions(): TrackPositions;
  /** The resets of the usage limits tracks are held at, so a later player holds them until the same time. */
  limits(): TrackLimits;
  /** Turns each track has left (Infinity for looping tracks); for tests and diagnostics. */
  remaining(): Record<string, number>;
};

export function trackMatches(match: TrackMatch, view: RequestView): boolean {
  if (match.api !== undefined && match.api !== view.api) return false;
  if (match.model !== undefined && !view.model.startsWith(match.model)) return false;
  if (match.system !== undefined && !view.system.includes(match.system)) return false;
  if (match.firstUser !== undefined && !view.firstUser.includes(match.firstUser)) return false;
  if (match.lastUser !== undefined && !view.lastUser.includes(match.lastUser)) return false;
  if (match.tools !== undefined && match.tools !== view.hasTools) return false;
  for (const [name, expected] of Object.entries(match.header ?? {})) {
    const actual = view.headers[name.toLowerCase()];
    const value = Array.isArray(actual) ? actual.join(', ') : actual;
    if (value === undefined || !value.includes(expected)) return false;
  }
  return true;
}

type TrackState = {
  name: string;
  match: TrackMatch | null;
  turns: Turn[];
  loop: boolean;
  whenExhausted: Turn;
  cursor: number;
  /** When the usage limit at the cursor resets (epoch ms), once it refused a request. */
  limitResetsAt?: number;
};

/**
 * When a limit first refused at `now` resets: `resetsIn` later, on a whole second; an API key's on a whole minute, as
 * Anthropic words it ("You will regain access on 2026-04-01 at 00:00 UTC").
 */
export function resetOf(limit: UsageLimitTurn['usageLimit'], now: number): number {
  const at = now + Math.round(limit.resetsIn * 1000);
  // On the whole second (an API key's on the whole minute), as the providers say it: an agent told
  // the reset in seconds then never comes back the moment before it.
  return limit.kind === 'api-key' ? Math.ceil(at / 60_000) * 60_000 : Math.ceil(at / 1000) * 1000;
}

/**
 * `start`: where each track that does not loop begins (a resumed execution's saved positions);
 * absent, at its first turn. A looping track always begins at its first turn: it plays again for
 * every attempt, a codon run again after a crash included.
 */
export function createScriptPlayer(
  script: Script,
  start: TrackPositions = {},
  now: () => number = Date.now,
  startLimits: TrackLimits = {},
): ScriptPlayer {
  const limitOf = (name: string): number | undefined => {
    const saved = startLimits[name];
    return saved !== undefined && Number.isSafeInteger(saved) && saved > 0 ? saved : undefined;
  };
  const at = (name: string): number => {
    const saved = start[name];
    return saved !== undefined && Number.isSafeInteger(saved) && saved > 0 ? saved : 0;
  };
  const withDefaults = (turn: Turn): Turn => ({
    ...turn,
    delayMs: turn.delayMs ?? script.defaults.delayMs,
    chunkDelayMs: turn.chunkDelayMs ?? script.defaults.chunkDelayMs,
  });
  const expand = (turns: Turn[]): Turn[] =>
    turns.flatMap((turn) => Array.from({ length: turn.repeat ?? 1 }, () => withDefaults(turn)));

  const tracks: TrackState[] = script.tracks.map((track) => ({
    name: track.name,
    match: track.match,
    turns: expand(track.turns),
    loop: track.loop,
    whenExhausted: withDefaults(track.whenExhausted ?? script.whenExhausted),
    cursor: track.loop ? 0 : at(track.name),
    ...(track.loop || limitOf(track.name) === undefined ? {} : { limitResetsAt: limitOf(track.name) }),
  }));
  const fallback: TrackState = {
    name: DEFAULT_TRACK,
    match: null,
    turns: expand(script.turns),
    loop: false,
    whenExhausted: withDefaults(script.whenExhausted),
    cursor: at(DEFAULT_TRACK),
    ...(limitOf(DEFAULT_TRACK) === undefined ? {} : { limitResetsAt: limitOf(DEFAULT_TRACK) }),
  };

  const next = (view: RequestView): PlayedTurn => {
    const track =
      tracks.find((candidate) => candidate.match && trackMatches(candidate.match, view)) ?? fallback;
    for (;;) {
      if (track.loop && track.cursor >= track.turns.length && track.turns.length > 0) track.cursor = 0;
      const turn = track.turns[track.cursor] ?? track.whenExhausted;
      const position = track.cursor < track.turns.length ? track.cursor : null;
      if (!('usageLimit' in turn)) {
        if (position !== null) track.cursor++;
        return { track: track.name, turn, position };
      }
      // A limit holds every request of its track until its reset, then the next turn plays.
      // The first refusal fixes the reset (whenExhausted's, again once it passed).
      const at = now();
      const fresh = track.limitResetsAt === undefined || (position === null && at >= track.limitResetsAt);
      if (fresh) track.limitResetsAt = resetOf(turn.usageLimit, at);
      const resetsAtMs = track.limitResetsAt ?? at;
      if (fresh || position === null || at < resetsAtMs)
        return { track: track.name, turn: { ...turn, resetsAtMs }, position };
      track.limitResetsAt = undefined;
      track.cursor++;
    }
  };

  const remaining = (): Record<string, number> =>
    Object.fromEntries(
      [...tracks, fallback].map((track) => [
        track.name,
        track.loop && track.turns.length > 0 ? Number.POSITIVE_INFINITY : track.turns.length - track.cursor,
      ]),
    );

  const positions = (): TrackPositions =>
    Object.fromEntries(
      [...tracks, fallback].filter((track) => !track.loop).map((track) => [track.name, track.cursor]),
    );

  const limits = (): TrackLimits =>
    Object.fromEntries(
      [...tracks, fallback].flatMap((track) =>
        !track.loop && track.limitResetsAt !== undefined ? [[track.name, track.limitResetsAt]] : [],
      ),
    );

  return { next, remaining, positions, limits };
}
