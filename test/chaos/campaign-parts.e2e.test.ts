/**
 * The pure parts of the fault campaign: the fuzzer's frames, the seeded generator, and the verdict
 * on a server that went down by itself.
 */
import { describe, expect, it } from 'vitest';
import type { ServerEvent } from '../../src/core/protocol/index.ts';
import { COMMAND_TYPES } from '../../src/core/protocol/index.ts';
import { acceptFrame } from '../../src/host/server/frame.ts';
import { decideUpgrade } from '../../src/host/server/origin.ts';
import { isLoopbackHost } from '../../src/platform/http/loopback.ts';
import { foreignOrigins } from './cross-site.ts';
import { fieldsOf, fuzzFrame, PROTOTYPE_KEYS, systematicFrames } from './lib/fuzz-frames.ts';
import { seededRandom } from './lib/scenario.ts';
import { downVerdict, FAILURE_EXIT_CODES, stackTraceIn } from './lib/server.ts';

const MAX = 10 * 1024 * 1024;
const parse = (text = '') => acceptFrame(Buffer.from(text), false, MAX);

describe('the fuzzer frames', () => {
  const frames = systematicFrames();

  it('cover every command, and every field of each with wrong values and prototype keys', () => {
    for (const type of COMMAND_TYPES) {
      expect(frames.some((f) => f.label.startsWith(`${type}: data =`))).toBe(true);
      for (const field of fieldsOf(type)) {
        expect(frames.filter((f) => f.label.startsWith(`${type}: ${field.name} = `)).length).toBeGreaterThan(
          10,
        );
      }
    }
    const hostile = frames.filter((f) => f.hostile).map((f) => f.label);
    for (const key of PROTOTYPE_KEYS) {
      expect(hostile).toContain(`codon.start: codonId = "${key}"`);
      expect(hostile).toContain(`checkpoint.list: runId = "${key}"`);
    }
  });

  it('are refused by the server parser, except hostile ids, which it must accept and the engine refuse', () => {
    let refused = 0;
    for (const f of frames) {
      const parsed = parse(f.text);
      if (f.hostile) expect(parsed.ok, f.label).toBe(true);
      else if (parsed.ok) expect(f.label).toMatch(/reason = |data = |missing|empty object/);
      else refused += 1;
    }
    expect(refused / frames.length).toBeGreaterThan(0.7);
  });

  it('never make a valid server.shutdown (the scenario would stop its own server)', () => {
    const random = seededRandom(7);
    const all = [...frames, ...Array.from({ length: 500 }, (_, n) => fuzzFrame(random, n))];
    for (const f of all) {
      const parsed = f.bytes ? undefined : parse(f.text);
      if (parsed?.ok && parsed.kind === 'command' && parsed.command.type === 'server.shutdown')
        // Valid shutdowns can only come from a wrong value the schema accepts (a reason); never hostile.
        expect(f.hostile).toBeFalsy();
    }
  });

  it('are the same for the same seed (a run can be replayed)', () => {
    const labels = (seed: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: 100 }, (_, n) => fuzzFrame(random, n).label);
    };
    expect(labels(42)).toEqual(labels(42));
    expect(labels(42)).not.toEqual(labels(43));
  });
});

describe('the cross-site scenario', () => {
  it('opens from loopback origins of other ports (and null), all of which the server must refuse', () => {
    const origins = foreignOrigins(seededRandom(3), 200);
    expect(new Set(origins).size).toBeGreaterThan(150);
    expect(origins).toContain('null');
    for (const origin of origins) {
      if (origin !== 'null') expect(isLoopbackHost(new URL(origin).hostname), origin).toBe(true);
      expect(decideUpgrade({ origin, allowOrigins: [], ticket: undefined, token: 'none' })).toEqual({
        ok: false,
        status: '403 Forbidden',
        error: 'origin_not_allowed',
      });
    }
  });
});

describe('the verdict on a server that went down by itself', () => {
  const fatal = {
    id: 'e',
    timestamp: new Date().toISOString(),
    type: 'error',
    data: { message: 'disk full at /x', fatal: true, severity: 'fatal', code: 'INTERNAL_ERROR' },
  } as ServerEvent;
  const code = [...FAILURE_EXIT_CODES][0] ?? 1;

  it('accepts a documented code after a fatal event, without a stack trace', () => {
    expect(downVerdict({ code, signal: null }, [fatal], 'ribosome: disk full at /x\n')).toEqual([]);
  });

  it('names each thing wrong: a signal, exit 0, an undocumented code, no fatal event, a stack trace', () => {
    expect(downVerdict({ code: null, signal: 'SIGABRT' }, [fatal], '')).toEqual([
      'the server died of SIGABRT',
    ]);
    expect(downVerdict({ code: 0, signal: null }, [fatal], '')[0]).toMatch(/exited 0/);
    expect(downVerdict({ code: 77, signal: null }, [fatal], '')[0]).toMatch(/not a documented code/);
    expect(downVerdict({ code, signal: null }, [], '')[0]).toMatch(/without a fatal error event/);
    const stack = 'ribosome: uncaught exception: Error: ENOSPC\n    at writeFileSync (node:fs:2482:20)\n';
    expect(downVerdict({ code, signal: null }, [fatal], stack)[0]).toMatch(/stack trace on stderr/);
  });

  it('finds stack traces, and only stack traces', () => {
    expect(stackTraceIn(new Error('boom').stack ?? '')).toMatch(/boom/);
    expect(stackTraceIn('    at async Promise.all (index 0)')).toBeDefined();
    expect(
      stackTraceIn('ribosome: resuming x: run 3 (at 4:5), next: two\nlistening ws://127.0.0.1:1'),
    ).toBeUndefined();
  });
});
