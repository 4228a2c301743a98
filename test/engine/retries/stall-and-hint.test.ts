import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StreamLine } from '../../../src/agents/stream-line.ts';
import { retryAfterFromText, retryAfterHint } from '../../../src/engine/retries/retry-after-hint.ts';
import { StallWatch } from '../../../src/engine/retries/stall-watch.ts';

const toolUse = (id: string): StreamLine => ({
  type: 'assistant',
  message: { id: 'm', content: [{ type: 'tool_use', id, name: 'Bash', input: {} }] },
});
const toolResult = (id: string): StreamLine => ({
  type: 'user',
  message: { content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] },
});

describe('stall watch', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('fires after the limit with no output, and any output restarts the clock', () => {
    const onStall = vi.fn();
    const watch = new StallWatch(1000, onStall);
    vi.advanceTimersByTime(900);
    watch.seen();
    vi.advanceTimersByTime(900);
    expect(onStall).not.toHaveBeenCalled();
    vi.advanceTimersByTime(200);
    expect(onStall).toHaveBeenCalledOnce();
  });

  it('does not run while a tool call is open (a long build prints nothing)', () => {
    const onStall = vi.fn();
    const watch = new StallWatch(1000, onStall);
    watch.seen(toolUse('t1'));
    vi.advanceTimersByTime(60_000);
    expect(onStall).not.toHaveBeenCalled();
    expect(watch.openTools).toBe(1);
    watch.seen(toolResult('t1'));
    vi.advanceTimersByTime(1000);
    expect(onStall).toHaveBeenCalledOnce();
  });

  it('never fires once stopped', () => {
    const onStall = vi.fn();
    new StallWatch(1000, onStall).stop();
    vi.advanceTimersByTime(5000);
    expect(onStall).not.toHaveBeenCalled();
  });
});

describe('retry-after hint', () => {
  it('prefers the agent field, then reads the error text', () => {
    expect(retryAfterHint(1500, 'retry-after: 9')).toBe(1500);
    expect(retryAfterHint(undefined, 'API Error: 429 rate limited; retry-after: 9')).toBe(9000);
    expect(retryAfterHint(null, 'please retry after 2.5 seconds')).toBe(2500);
    expect(retryAfterHint(undefined, 'API Error: 500 boom')).toBeUndefined();
  });
  it('reads milliseconds where the text says so', () => {
    expect(retryAfterFromText('"retry-after-ms": "1200"')).toBe(1200);
    expect(retryAfterFromText('retry after 300 ms')).toBe(300);
  });
});
