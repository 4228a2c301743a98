import { describe, expect, it } from 'vitest';
import {
  checkVariable,
  EVENT_STRING_LIMIT,
  type PromptContext,
  promptLookup,
} from '../../../src/plan/templates/prompt-variables.ts';
import { parseTemplate, renderTemplate } from '../../../src/plan/templates/template.ts';

const context: PromptContext = {
  events: [
    {
      type: 'assistant.action',
      timestamp: '2026-01-01T00:00:00.000Z',
      data: { codonId: 'c1', action: 'tool_use', toolName: 'Bash', toolInput: { command: 'ls' } },
    },
    {
      type: 'tool.result',
      timestamp: '2026-01-01T00:00:01.000Z',
      data: { codonId: 'c1', toolName: 'Bash', isError: false, result: 'a.txt' },
    },
  ],
  droppedCount: 3,
  triggerNumber: 7,
  codon: { id: 'c1', name: 'Codon one', prompt: 'Do it.' },
  sentinel: { id: 'watch', model: 'claude-haiku-4-5' },
  time: '2026-01-01T00:00:02.000Z',
  paths: { agentRoot: '/x/agentRoot', dataDir: '/x/agentRoot/ribosome-data' },
};

function render(text: string, ctx: PromptContext = context, structured = false) {
  const parsed = parseTemplate(text, checkVariable({ structured }));
  if (!parsed.ok) return { parseError: parsed.error };
  const rendered = renderTemplate(parsed.template, promptLookup(ctx));
  return rendered.ok ? { text: rendered.text } : { renderError: rendered.error.message };
}

describe('template rendering', () => {
  const ok: Array<[string, string]> = [
    ['no placeholders', 'no placeholders'],
    ['{{eventCount}} events', '2 events'],
    ['{{ eventCount }} (spaces)', '2 (spaces)'],
    ['{{codon.id}}/{{codon.name}}/{{codon.prompt}}', 'c1/Codon one/Do it.'],
    ['[{{codon.description}}]', '[]'],
    ['{{sentinel.id}} on {{sentinel.model}}', 'watch on claude-haiku-4-5'],
    ['#{{triggerNumber}} dropped {{droppedCount}} at {{time}}', '#7 dropped 3 at 2026-01-01T00:00:02.000Z'],
    ['{{events.last.type}}', 'tool.result'],
    ['{{events.first.data.toolInput.command}}', 'ls'],
    ['{{events.1.data.isError}}', 'false'],
    ['{{events.0.data.toolInput}}', '{"command":"ls"}'],
    ['literal \\{{eventCount}}', 'literal {{eventCount}}'],
    [
      'data in {{dataDir}}, work in {{agentRoot}}',
      'data in /x/agentRoot/ribosome-data, work in /x/agentRoot',
    ],
    ['JSON {"a": {"b": 1}} stays', 'JSON {"a": {"b": 1}} stays'],
  ];
  it.each(ok)('%s', (template, expected) => {
    expect(render(template)).toEqual({ text: expected });
  });

  it('lists the batch as one JSON line per event, without ids', () => {
    const out = render('{{events}}');
    expect(out.text?.split('\n').map((l) => JSON.parse(l))).toEqual(context.events);
  });

  it('shortens long strings in event listings', () => {
    const big = {
      ...context,
      events: [{ type: 'file.updated', timestamp: 't', data: { content: 'x'.repeat(5000) } }],
    };
    const line = render('{{events}}', big).text ?? '';
    expect(line.length).toBeLessThan(EVENT_STRING_LIMIT + 200);
    expect(line).toContain('4000 more characters');
  });

  it('gives the output schema to structured sentinels only', () => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
    expect(render('{{outputSchema}}', { ...context, outputSchema: schema }, true)).toEqual({
      text: JSON.stringify(schema),
    });
    expect(render('{{outputSchema}}').parseError?.message).toMatch(
      /only for sentinels with structured output/,
    );
  });

  const parseErrors: Array<[string, string, RegExp, number, number]> = [
    ['unclosed', 'Hi {{events', /unclosed "\{\{"/, 1, 4],
    ['unknown variable', 'line\n  {{evnts}}', /unknown variable; known variables: events, eventCount/, 2, 3],
    ['empty placeholder', '{{}}', /is not a variable/, 1, 1],
    ['expression', '{{ events | json }}', /is not a variable/, 1, 1],
    ['bad event index', '{{events.latest.type}}', /first, last or an index/, 1, 1],
    ['unknown codon field', '{{codon.status}}', /codon has codon.id, codon.name/, 1, 1],
    ['codon alone', '{{codon}}', /unknown variable/, 1, 1],
    ['too deep', '{{time.zone}}', /unknown variable/, 1, 1],
  ];
  it('reports every problem of a text, not only the first (trial 17 L1)', () => {
    const parsed = parseTemplate(
      'a {{ nope }} b {{}} c {{events}} {{output',
      checkVariable({ structured: false }),
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors.map((e) => [e.column, e.message.slice(0, 20)])).toEqual([
      [3, '{{nope}}: unknown va'],
      [16, '"{{}}" is not a vari'],
      [34, 'unclosed "{{": close'],
    ]);
    expect(parsed.error).toEqual(parsed.errors[0]);
  });

  it.each(parseErrors)('refuses at load: %s', (_name, template, message, line, column) => {
    const out = render(template);
    expect(out.parseError?.message).toMatch(message);
    expect(out.parseError).toMatchObject({ line, column });
  });

  const renderErrors: Array<[string, string, RegExp]> = [
    [
      'a field the event lacks',
      '{{events.last.data.toolInput}}',
      /the tool.result event has no field data.toolInput/,
    ],
    ['an index past the batch', '{{events.5.type}}', /the batch has 2 event\(s\), so there is no events.5/],
  ];
  it.each(renderErrors)('fails at render: %s', (_name, template, message) => {
    expect(render(template).renderError).toMatch(message);
  });
});
