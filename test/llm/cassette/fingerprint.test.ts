import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalRequest,
  fingerprintOf,
  firstDifference,
  requestFingerprint,
} from '../../../src/llm/cassette/fingerprint.ts';

const places = {
  agentRoot: '/tmp/run-1/exec/agentRoot',
  execution: '/tmp/run-1/exec',
  home: '/tmp/run-1/exec/.ribosome/agents/claude-home',
};
const placesAgain = {
  agentRoot: '/var/tmp/other/exec/agentRoot',
  execution: '/var/tmp/other/exec',
  home: '/var/tmp/other/exec/.ribosome/agents/claude-home',
};

/** A Claude Code-like Messages request of one run, with what varies between runs given. */
function claudeRequest(v: {
  root: string;
  home: string;
  date: string;
  session: string;
  callId: string;
  prompt?: string;
  toolResult?: string;
  tools?: string[];
}) {
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 32000,
    stream: true,
    metadata: { user_id: `user_abc_account__session_${v.session}` },
    system: [
      {
        type: 'text',
        text: `You are Claude Code. Working directory: ${v.root}\nToday's date is ${v.date}.`,
        cache_control: { type: 'ephemeral' },
      },
    ],
    messages: [
      { role: 'user', content: [{ type: 'text', text: v.prompt ?? 'Create hello.txt saying hi.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: v.callId, name: 'Write', input: { file_path: `${v.root}/hello.txt` } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: v.callId,
            content: v.toolResult ?? `File created at ${v.root}/hello.txt (config in ${v.home})`,
            cache_control: { type: 'ephemeral' },
          },
        ],
      },
    ],
    tools: (v.tools ?? ['Write', 'Bash']).map((name) => ({ name, input_schema: { type: 'object' } })),
  };
}

const runA = {
  root: places.agentRoot,
  home: places.home,
  date: '2026-11-30',
  session: '0f8fad5b-d9cb-469f-a165-70867728950e',
  callId: 'toolu_01A2B3C4D5E6F7',
};
const runB = {
  root: placesAgain.agentRoot,
  home: placesAgain.home,
  date: '2026-12-01',
  session: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  callId: 'toolu_09Z8Y7X6W5V4U3',
};

describe('the request fingerprint a replay matches on', () => {
  it('is the same across runs: other ids, dates, paths, cache markers, sessions and stream flag', () => {
    const a = canonicalRequest(claudeRequest(runA), places);
    const b = canonicalRequest({ ...claudeRequest(runB), stream: false }, placesAgain);
    expect(firstDifference(a, b)).toBeUndefined();
    expect(fingerprintOf(a)).toBe(fingerprintOf(b));
    // What stays is readable: the paths by name.
    expect(JSON.stringify(a)).toContain('Working directory: <agentRoot>');
    expect(JSON.stringify(a)).toContain('config in <home>');
    expect(JSON.stringify(a)).not.toContain('toolu_');
  });

  it("takes the skills Gemini CLI's activate_skill tool names as a set too", () => {
    const tool = (names: string) => ({
      tools: [
        {
          functionDeclarations: [
            {
              name: 'activate_skill',
              description: `Activates a specialized agent skill by name (Available: ${names}). Then.`,
            },
          ],
        },
      ],
    });
    const one = fingerprintOf(canonicalRequest(tool("'skill-creator', 'antigravity-support'"), places));
    expect(fingerprintOf(canonicalRequest(tool("'antigravity-support', 'skill-creator'"), placesAgain))).toBe(
      one,
    );
    expect(fingerprintOf(canonicalRequest(tool("'antigravity-support', 'other'"), placesAgain))).not.toBe(
      one,
    );
  });

  it("takes Gemini CLI's skill list as a set: found in another order it matches; another skill does not", () => {
    const skill = (name: string) =>
      `  <skill>\n    <name>${name}</name>\n    <description>d</description>\n  </skill>`;
    const system = (...names: string[]) => ({
      systemInstruction: {
        parts: [
          { text: `Hi.\n<available_skills>\n${names.map(skill).join('\n')}\n</available_skills>\nBye.` },
        ],
      },
    });
    const one = fingerprintOf(canonicalRequest(system('skill-creator', 'antigravity-support'), places));
    expect(fingerprintOf(canonicalRequest(system('antigravity-support', 'skill-creator'), placesAgain))).toBe(
      one,
    );
    expect(fingerprintOf(canonicalRequest(system('antigravity-support', 'other'), placesAgain))).not.toBe(
      one,
    );
  });

  it('tells a changed prompt, naming where and both values', () => {
    const a = canonicalRequest(claudeRequest(runA), places);
    const b = canonicalRequest(
      claudeRequest({ ...runB, prompt: 'Create hello.txt saying bye.' }),
      placesAgain,
    );
    expect(fingerprintOf(a)).not.toBe(fingerprintOf(b));
    expect(firstDifference(a, b)).toEqual({
      path: 'messages[0].content[0].text',
      recorded: 'Create hello.txt saying hi.',
      now: 'Create hello.txt saying bye.',
    });
  });

  it('tells a changed tool result, the model, and the tools offered', () => {
    const a = canonicalRequest(claudeRequest(runA), places);
    const result = canonicalRequest(claudeRequest({ ...runA, toolResult: 'Permission denied' }), places);
    expect(firstDifference(a, result)?.path).toBe('messages[2].content[0].content');
    const model = canonicalRequest({ ...claudeRequest(runA), model: 'claude-opus-4-1' }, places);
    expect(firstDifference(a, model)).toMatchObject({ path: 'model' });
    const tools = canonicalRequest(claudeRequest({ ...runA, tools: ['Write', 'Bash', 'Grep'] }), places);
    expect(firstDifference(a, tools)).toEqual({
      path: 'tools[2]',
      recorded: '(absent)',
      now: '{"input_schema":{"type":"object"},"name":"Grep"}',
    });
  });

  it('shows a long text around its first difference, not whole', () => {
    const long = (end: string) => ({
      model: 'm',
      messages: [{ role: 'user', content: `${'x'.repeat(500)}${end}` }],
    });
    const d = firstDifference(canonicalRequest(long('AAA')), canonicalRequest(long('BBB')));
    expect(d?.path).toBe('messages[0].content');
    expect(d?.recorded).toMatch(/^….{40}AAA$/);
    expect(d?.now).toMatch(/^….{40}BBB$/);
  });

  it('keeps a tool parameter named id (only a string id is dropped)', () => {
    const tool = (type: string) => ({
      tools: [{ name: 'get', input_schema: { type: 'object', properties: { id: { type } } } }],
    });
    const d = firstDifference(canonicalRequest(tool('string')), canonicalRequest(tool('number')));
    expect(d).toEqual({
      path: 'tools[0].input_schema.properties.id.type',
      recorded: 'string',
      now: 'number',
    });
  });

  it('replaces the longest path first (the agent root inside the execution)', () => {
    const c = canonicalRequest({ a: `${places.agentRoot}/x and ${places.execution}/.ribosome` }, places);
    expect(c).toEqual({ a: '<agentRoot>/x and <execution>/.ribosome' });
  });

  it('does not depend on key order, and is its own canonical form', () => {
    const json = fc.jsonValue();
    fc.assert(
      fc.property(json, (value) => {
        const c = canonicalRequest(value);
        expect(canonicalRequest(c)).toEqual(c);
        const reversed = JSON.parse(JSON.stringify(value), (_k, v) =>
          v && typeof v === 'object' && !Array.isArray(v)
            ? Object.fromEntries(Object.entries(v).reverse())
            : v,
        );
        expect(fingerprintOf(canonicalRequest(reversed))).toBe(fingerprintOf(c));
      }),
      { numRuns: 200 },
    );
  });

  it("leaves out what each agent's tools print that differs between two runs of one plan (each a miss seen once)", () => {
    const places2 = { agentRoot: '/tmp/r2/exec-longer/agentRoot', execution: '/tmp/r2/exec-longer' };
    const a = (text: string, p: Record<string, string> = places) =>
      canonicalRequest({ messages: [{ role: 'user', content: text }] }, p);
    const same = (one: string, two: string, p2: Record<string, string> = places) =>
      expect(fingerprintOf(a(one))).toBe(fingerprintOf(a(two, p2)));
    // A sentinel's events quote the time a tool took.
    same('{"type":"tool.result","executionTimeMs":17}', '{"type":"tool.result","executionTimeMs":3}');
    // `ls -l` shows file times.
    same(
      '-rw-r--r-- 1 root root 27 Nov 30 05:39 hello.txt',
      '-rw-r--r-- 1 root root 27 Dec  1 11:02 hello.txt',
    );
    // Claude Code names its project folder after the agent root.
    same(
      `memory in ${places.home}/projects/${places.agentRoot.replace(/[^A-Za-z0-9]/g, '-')}/memory/`,
      `memory in ${places.home}/projects/${places2.agentRoot.replace(/[^A-Za-z0-9]/g, '-')}/memory/`,
      { ...places2, home: places.home },
    );
    // Codex's shell output header.
    same('Chunk ID: 66b67e\nWall time: 0.0123 seconds\nok', 'Chunk ID: 6ce55b\nWall time: 0.2 seconds\nok');
    // Gemini CLI's shell output footer.
    same('Exit Code: 0\nProcess Group PGID: 20', 'Exit Code: 0\nProcess Group PGID: 19');
    // What matters still does.
    expect(fingerprintOf(a('Exit Code: 0'))).not.toBe(fingerprintOf(a('Exit Code: 1')));
    expect(fingerprintOf(a('sleep 5 seconds'))).not.toBe(fingerprintOf(a('sleep 6 seconds')));
  });

  it('the fingerprint of a request body is that of its canonical form, secrets and paths out', () => {
    const secrets = (text: string) => text.replaceAll('sk-secret-1234', '[redacted:KEY]');
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom('', 'sk-secret-1234', places.agentRoot), (value, extra) => {
        const body = { value, note: `see ${extra} and ${'x'.repeat(300)}${extra}` };
        expect(requestFingerprint('POST', '/v1/messages', body, places, secrets)).toBe(
          fingerprintOf(['POST', '/v1/messages', canonicalRequest(body, places, secrets)]),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('a key named __proto__ stays a key of the canonical form (fast-check found it), never its prototype', () => {
    const body = JSON.parse('{"value":{"__proto__":""},"evil":{"__proto__":{"polluted":true}}}');
    const c = canonicalRequest(body);
    expect(JSON.stringify(c)).toBe('{"evil":{"__proto__":{"polluted":true}},"value":{"__proto__":""}}');
    expect(Object.getPrototypeOf((c as Record<string, object>).evil)).toBe(Object.prototype);
    expect(requestFingerprint('POST', '/v1/messages', body)).toBe(fingerprintOf(['POST', '/v1/messages', c]));
    expect(fingerprintOf(canonicalRequest(JSON.parse('{"value":{}}')))).not.toBe(fingerprintOf(c));
  });
});
