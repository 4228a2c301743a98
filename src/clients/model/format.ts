/** Text helpers for every UI: numbers as people read them, and agent text made safe to print. */
import { ENDED_FROM_OUTSIDE } from '../../core/protocol/tool-ended.ts';
import { markEstimate } from '../../llm/estimated-cost.ts';
import { displayText } from './display-text.ts';

/** `$0.0604`; `~$0.0604` when `estimated` (part of it Ribosome's estimate: llm/estimated-cost.ts). */
export function formatCost(usd: number, estimated?: boolean): string {
  if (usd === 0) return '$0';
  // Agent calls cost fractions of a cent: below a dollar, four decimals still say something.
  return markEstimate(usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`, estimated);
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '-';
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  const s = ms / 1_000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const total = Math.floor(s);
  const h = Math.floor(total / 3_600);
  const m = Math.floor((total % 3_600) / 60);
  const sec = total % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : `${m}m${String(sec).padStart(2, '0')}s`;
}

/** A wall clock for elapsed time: 01:23 or 1:02:03. */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1_000));
  const h = Math.floor(total / 3_600);
  const mm = String(Math.floor((total % 3_600) / 60)).padStart(2, '0');
  const ss = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

export function formatTokens(n: number): string {
  if (n < 1_000) return String(n);
  if (n < 1_000_000) return `${(n / 1_000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toTimeString().slice(0, 8);
}

/**
 * Agent text for a UI: line breaks kept (CR read as LF), tabs as two spaces (Ink counts
 * columns by characters), every other control character, escape sequence and bidirectional control
 * shown as an inert stand-in (display-text.ts).
 */
export function sanitize(text: string): string {
  return displayText(text).replace(/\t/g, '  ');
}

// Text that oneLine would give back as it is: no control character, no whitespace but single
// spaces inside. Most agent lines are such; a long history is a million of them.
const NOT_ONE_LINE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|[^\S ]| {2}|^ | $/;

/** The text on one line: whitespace runs collapsed, cut with an ellipsis past `max` characters. */
export function oneLine(text: string, max = 500): string {
  if (text.length <= max && !NOT_ONE_LINE.test(text)) return text;
  const line = sanitize(text).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** What a `sandbox.denied` event says, the same in every view: what was refused, how often, why. */
export function sandboxDeniedText(d: {
  codonId: string;
  kind: 'connect' | 'request';
  target: string;
  method?: string;
  path?: string;
  reason: string;
  count: number;
}): string {
  const what =
    d.kind === 'connect'
      ? `a connection to ${d.target}`
      : `${d.method ?? 'a request'} ${d.target}${d.path ?? ''}`;
  const times = d.count > 1 ? ` (${d.count} times)` : '';
  return `⊘ ${d.codonId}: the sandbox refused ${what}${times}: ${d.reason}`;
}

/** What every view says of a tool call whose result never came and never can: its codon ended first. */
export const ENDED_WITH_CODON = 'ended with the codon';

/**
 * A tool.result that is no result: the one an agent's translator gives a call still open when the
 * agent's run was ended from outside (a stop, a timeout, a halt). Its call ended with the codon.
 */
export function isEndedWithCodon(result: { result: string; isError: boolean }): boolean {
  return result.isError && result.result === ENDED_FROM_OUTSIDE;
}

/**
 * A tool call's mark, the same in every view: `✓ 1.2s`, `✗ failed 1.2s`, `· ended with the codon`,
 * else `… running`.
 */
export function toolCallMark(call: { result?: { isError: boolean; ms: number }; endedWithCodon?: true }): {
  text: string;
  state: 'done' | 'failed' | 'ended' | 'running';
} {
  const r = call.result;
  if (r)
    return r.isError
      ? { text: `✗ failed ${formatDuration(r.ms)}`, state: 'failed' }
      : { text: `✓ ${formatDuration(r.ms)}`, state: 'done' };
  if (call.endedWithCodon) return { text: `· ${ENDED_WITH_CODON}`, state: 'ended' };
  return { text: '… running', state: 'running' };
}

/** What every view says of a change to a file checkpoints leave out (file.updated `ignored`). */
export const IGNORED_FILE = 'ignored: not checkpointed';

/** A file change as every view words it: `created kept.txt`, `modified package-lock.json (ignored: not checkpointed)`. */
export function fileChangeText(d: { action: string; path: string; ignored?: boolean }): string {
  return `${d.action} ${d.path}${d.ignored ? ` (${IGNORED_FILE})` : ''}`;
}

/** A client's id as people read it: `client-ee65aa1d-…` is `ee65aa1d` (unique enough among a run's clients). */
export function shortClientId(clientId: string): string {
  return clientId.replace(/^client-/, '').slice(0, 8);
}
