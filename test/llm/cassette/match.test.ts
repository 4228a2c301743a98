import { describe, expect, it } from 'vitest';
import type { Caller } from '../../../src/llm/cassette/caller.ts';
import { canonicalRequest, fingerprintOf } from '../../../src/llm/cassette/fingerprint.ts';
import { createMatcher } from '../../../src/llm/cassette/match.ts';
import type { ExchangeLine } from '../../../src/llm/cassette/schema.ts';

const build: Caller = { kind: 'codon', id: 'build' };
const watcher: Caller = { kind: 'sentinel', id: 'watcher' };

function request(text: string, system = 'You are a coding agent.') {
  return canonicalRequest({
    model: 'claude-sonnet-4-5',
    system,
    messages: [{ role: 'user', content: text }],
  });
}

let seq = 0;
function exchange(caller: Caller, turn: number, text: string, answer: string, system?: string): ExchangeLine {
  const canonical = request(text, system);
  seq += 1;
  return {
    type: 'exchange',
    seq,
    at: '2026-11-30T00:00:00.000Z',
    caller,
    turn,
    method: 'POST',
    path: '/v1/messages',
    api: 'anthropic',
    fingerprint: fingerprintOf(['POST', '/v1/messages', canonical]),
    request: canonical,
    status: 200,
    headers: { 'content-type': 'application/json' },
    headMs: 1,
    chunks: [[2, answer]],
    end: 'complete',
  };
}

const lookup = (caller: Caller, text: string, system?: string) => {
  const canonical = request(text, system);
  return {
    caller,
    method: 'POST',
    path: '/v1/messages',
    fingerprint: fingerprintOf(['POST', '/v1/messages', canonical]),
    request: canonical,
  };
};

const answer = (result: ReturnType<ReturnType<typeof createMatcher>['match']>) =>
  result.kind === 'hit' ? result.exchange.chunks[0]?.[1] : `miss: ${result.message}`;

describe('a replay matches each request to a recorded exchange of the same caller', () => {
  it('in recorded order; an identical request asked twice gets the two recorded answers in turn', () => {
    const matcher = createMatcher([
      exchange(build, 1, 'go', 'first'),
      exchange(build, 2, 'go', 'second'),
      exchange({ kind: 'codon', id: 'other' }, 1, 'go', 'other codon'),
    ]);
    expect(answer(matcher.match(lookup(build, 'go')))).toBe('first');
    expect(answer(matcher.match(lookup(build, 'go')))).toBe('second');
    // Used up: a codon started over after a crash asks again and gets the last answer again.
    const again = matcher.match(lookup(build, 'go'));
    expect(again.kind === 'hit' && again.how).toBe('again');
    expect(answer(matcher.match(lookup({ kind: 'codon', id: 'other' }, 'go')))).toBe('other codon');
  });

  it('a request of another caller does not take a codon its answers', () => {
    const matcher = createMatcher([exchange(build, 1, 'go', 'build answer')]);
    const result = matcher.match(lookup({ kind: 'codon', id: 'deploy' }, 'go'));
    expect(result.kind).toBe('miss');
    expect(answer(result)).toContain('the cassette holds no exchange of codon deploy');
  });

  it('a changed request misses, naming the nearest recorded request and the first difference', () => {
    const matcher = createMatcher([exchange(build, 1, 'Create hello.txt saying hi.', 'ok')]);
    const result = matcher.match(lookup(build, 'Create hello.txt saying bye.'));
    expect(result.kind).toBe('miss');
    expect(answer(result)).toMatch(
      /no recorded exchange of codon build matches this request \(POST \/v1\/messages\)\. Nearest: exchange \d+ \(codon build, turn 1\); they first differ at messages\[0\]\.content: recorded "Create hello\.txt saying hi\.", now "Create hello\.txt saying bye\."/,
    );
  });

  it("a sentinel's requests match by shape in order (its events are batched by time), the last again when they run out", () => {
    const matcher = createMatcher([
      exchange(watcher, 1, 'events 1-6', 'verdict one', 'You watch.'),
      exchange(watcher, 2, 'events 7-9', 'verdict two', 'You watch.'),
    ]);
    expect(answer(matcher.match(lookup(watcher, 'events 1-2', 'You watch.')))).toBe('verdict one');
    expect(answer(matcher.match(lookup(watcher, 'events 3-9', 'You watch.')))).toBe('verdict two');
    expect(answer(matcher.match(lookup(watcher, 'events 10', 'You watch.')))).toBe('verdict two');
    // Its prompt changed: no recorded answer fits (--sentinels live asks the provider instead).
    const changed = matcher.match(lookup(watcher, 'events 1-2', 'You watch closely.'));
    expect(changed.kind).toBe('miss');
    expect(answer(changed)).toContain('first differ at system');
  });

  it('side-by-side requests of one caller may come in another order than recorded', () => {
    const matcher = createMatcher([
      exchange(build, 1, 'title', 'A title'),
      exchange(build, 2, 'main', 'Main'),
    ]);
    expect(answer(matcher.match(lookup(build, 'main')))).toBe('Main');
    expect(answer(matcher.match(lookup(build, 'title')))).toBe('A title');
    expect(matcher.unused()).toEqual([]);
  });
});

describe('cassette to-script keeps the last start of a caller', () => {
  it('drops what a codon asked before it started over with the same attempt (a crash), keeps a retry', async () => {
    const { lastStarts } = await import('../../../src/llm/cassette/to-script.ts');
    const first = exchange(build, 1, 'go', 'a');
    const crashed = exchange(build, 2, 'step', 'b');
    const again = { ...exchange(build, 3, 'go', 'a'), attempt: undefined };
    const on = exchange(build, 4, 'step', 'c');
    const other = exchange(watcher, 1, 'events', 'v', 'You watch.');
    expect(lastStarts([first, crashed, other, again, on]).kept.map((e) => e.seq)).toEqual([
      other.seq,
      again.seq,
      on.seq,
    ]);
    const retry = { ...exchange(build, 3, 'go', 'a'), attempt: 2 };
    expect(lastStarts([{ ...first, attempt: 1 }, crashed, retry]).dropped).toBe(0);
  });
});
