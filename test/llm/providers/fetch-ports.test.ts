import { describe, expect, it } from 'vitest';
import { fetchBlockedPort, fetchBlockedPorts, urlPort } from '../../../src/llm/providers/fetch-ports.ts';

/** Whether this Node's fetch refuses a port outright ("bad port"), without connecting. */
async function refused(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(5_000) });
    return false;
  } catch (error) {
    const err = error as Error & { cause?: { message?: string } };
    return (err.cause?.message ?? err.message) === 'bad port';
  }
}

describe('ports fetch refuses', () => {
  it("the list is this Node's: each listed port refused, the ports beside them not", async () => {
    const listed = fetchBlockedPorts();
    expect(listed).toContain(6000);
    expect(listed).toContain(10080);
    const beside = [...new Set(listed.flatMap((p) => [p - 1, p + 1]))].filter((p) => !listed.includes(p));
    const [blocked, open] = await Promise.all([
      Promise.all(listed.map(refused)),
      Promise.all(beside.map(refused)),
    ]);
    expect(listed.filter((_, i) => !blocked[i])).toEqual([]);
    expect(beside.filter((_, i) => open[i])).toEqual([]);
  });

  it('reads the port of a URL, its scheme default when it names none', () => {
    expect(urlPort('http://h')).toBe(80);
    expect(urlPort('https://h')).toBe(443);
    expect(urlPort('http://h:6000/v1')).toBe(6000);
    expect(urlPort('not a url')).toBeUndefined();
    expect(fetchBlockedPort('http://127.0.0.1:6000')).toBe(6000);
    expect(fetchBlockedPort('http://127.0.0.1:6001')).toBeUndefined();
    expect(fetchBlockedPort('https://api.anthropic.com')).toBeUndefined();
  });
});
