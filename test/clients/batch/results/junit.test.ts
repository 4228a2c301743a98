import { describe, expect, it } from 'vitest';
import { junitXml } from '../../../../src/clients/batch/results/junit.ts';
import { job, metrics, summary } from './summaries.ts';
import { parseXml, type XmlElement } from './xml.ts';

const HOSTILE = `<]]>&"' \u0000 end`;

const child = (el: XmlElement | undefined, name: string) => el?.children.find((c) => c.name === name);

describe('junitXml', () => {
  const batch = summary([
    job('ok', { durationMs: 61_500 }),
    job('broke', {
      state: 'failed',
      exitCode: 1,
      reason: 'codon build failed: gate 1 (npm test) failed',
      metrics: metrics({
        codonsDone: 1,
        failure: { codonId: 'build', reason: 'verify', message: 'gate 1 `npm test` exited with code 1' },
      }),
    }),
    job('lost', { state: 'infra-failed', exitCode: 3, reason: 'its run exited 3 (agent CLI missing)' }),
    job('late', { state: 'skipped', reason: 'the batch budget is spent', metrics: undefined }),
    job('queued', { state: 'pending', metrics: undefined, durationMs: undefined }),
  ]);
  const root = parseXml(junitXml(batch));
  const suite = child(root, 'testsuite');
  const cases = suite?.children ?? [];

  it('one suite named after the batch, its counts, one test case per job in order', () => {
    expect(root.name).toBe('testsuites');
    expect(suite?.attributes).toMatchObject({
      name: 'nightly',
      tests: '5',
      failures: '1',
      errors: '1',
      skipped: '2',
      timestamp: '2026-01-01T00:00:00.000Z',
    });
    expect(Number(suite?.attributes.time)).toBeCloseTo(61.5 + 60 * 3, 3);
    expect(root.attributes).toMatchObject({ tests: '5', failures: '1', errors: '1', skipped: '2' });
    expect(cases.map((c) => [c.name, c.attributes.classname, c.attributes.name, c.attributes.time])).toEqual([
      ['testcase', 'nightly', 'ok', '61.500'],
      ['testcase', 'nightly', 'broke', '60.000'],
      ['testcase', 'nightly', 'lost', '60.000'],
      ['testcase', 'nightly', 'late', '60.000'],
      ['testcase', 'nightly', 'queued', '0.000'],
    ]);
  });

  it('passed: no outcome; failed: its codon failure the message, the reason in the body; infra: error; never ran: skipped', () => {
    const [ok, broke, lost, late, queued] = cases;
    expect(ok?.children.map((c) => c.name)).toEqual(['system-out']);
    const failure = child(broke, 'failure');
    expect(failure?.attributes).toEqual({
      message: 'codon build failed (verify): gate 1 `npm test` exited with code 1',
      type: 'verify',
    });
    expect(failure?.text).toBe(
      'codon build failed: gate 1 (npm test) failed\n\ncodon build failed (verify): gate 1 `npm test` exited with code 1',
    );
    expect(child(broke, 'system-out')?.text).toContain('codons: 1/2');
    expect(child(lost, 'error')?.attributes).toEqual({
      message: 'its run exited 3 (agent CLI missing)',
      type: 'infrastructure',
    });
    expect(child(late, 'skipped')?.attributes).toEqual({ message: 'the batch budget is spent' });
    expect(child(queued, 'skipped')?.attributes).toEqual({ message: 'never started' });
  });

  it("a failure the runner's reason already says is said once (as ribosome batch words a gate's failure)", () => {
    const failure = { codonId: 'write', reason: 'verify', message: 'gate 1/1 exited with code 1' };
    const text = 'codon write failed (verify): gate 1/1 exited with code 1';
    const only = parseXml(
      junitXml(summary([job('bad', { state: 'failed', reason: text, metrics: metrics({ failure }) })])),
    );
    expect(child(child(child(only, 'testsuite'), 'testcase'), 'failure')?.text).toBe(text);
  });

  it('escapes hostile ids and reasons: still well-formed, the text shown as it was, a NUL as its stand-in', () => {
    const xml = junitXml(
      summary(
        [
          job(`id${HOSTILE}`, {
            state: 'failed',
            reason: `why${HOSTILE}\nsecond line`,
            metrics: metrics({ failure: { codonId: `c${HOSTILE}`, reason: 'unknown', message: HOSTILE } }),
          }),
          job('lone-surrogate\ud800', { state: 'infra-failed', reason: 'x\ud800y' }),
        ],
        { name: `batch${HOSTILE}` },
      ),
    );
    expect(xml).not.toContain('\u0000');
    const parsed = parseXml(xml);
    const shown = HOSTILE.replace('\u0000', '␀');
    const [hostile, surrogate] = child(parsed, 'testsuite')?.children ?? [];
    expect(parsed.attributes.name).toBe(`batch${shown}`);
    expect(hostile?.attributes).toMatchObject({ name: `id${shown}`, classname: `batch${shown}` });
    const failure = child(hostile, 'failure');
    expect(failure?.attributes.message).toBe(`codon c${shown} failed (unknown): ${shown}`);
    expect(failure?.text).toBe(`why${shown}\nsecond line\n\ncodon c${shown} failed (unknown): ${shown}`);
    expect(surrogate?.attributes.name).toBe('lone-surrogate\ufffd');
    expect(child(surrogate, 'error')?.text).toBe('x\ufffdy');
  });

  it('the reader these tests trust refuses what is not well-formed', () => {
    for (const bad of [
      '<a>&</a>',
      '<a>x<b></a>',
      '<a b="1" b="2"/>',
      '<a>\u0000</a>',
      '<a>]]></a>',
      '<a/><b/>',
    ]) {
      expect(() => parseXml(bad), bad).toThrow();
    }
    expect(parseXml('<a b="&lt;&#x26;&#39;">&gt;</a>')).toEqual({
      name: 'a',
      attributes: { b: "<&'" },
      children: [],
      text: '>',
    });
  });
});
