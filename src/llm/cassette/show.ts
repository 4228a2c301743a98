/** `ribosome cassette show`: a cassette as lines a person reads. Pure. */
import { turnOf } from './answer-blocks.ts';
import { callerName } from './caller.ts';
import type { Cassette, ExchangeLine } from './schema.ts';

const cut = (text: string, room: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > room ? `${flat.slice(0, room - 1)}…` : flat;
};

/** What an answer said, in one short phrase: its text, its tool calls, or its error. */
export function answerSummary(exchange: ExchangeLine): string {
  const turn = turnOf(exchange);
  if (!turn) return exchange.end === 'cut' ? '(cut before anything could be read)' : '(nothing to read)';
  if ('error' in turn)
    return `error ${turn.error.status}${turn.error.message ? `: ${cut(turn.error.message, 60)}` : ''}`;
  if (!('content' in turn)) return '';
  return turn.content
    .map((block) =>
      'text' in block
        ? `"${cut(block.text, 60)}"`
        : 'thinking' in block
          ? '(thinking)'
          : 'mcp_tool' in block
            ? `${block.mcp_tool.server}/${block.mcp_tool.tool}(${cut(JSON.stringify(block.mcp_tool.input), 50)})`
            : `${block.tool_use.name}(${cut(typeof block.tool_use.input === 'string' ? block.tool_use.input : JSON.stringify(block.tool_use.input), 50)})`,
    )
    .join(' + ');
}

export function showCassette(cassette: Cassette, path: string): string[] {
  const { header, exchanges, outcome } = cassette;
  const lines = [
    `${path}: plan ${header.plan.name} (${header.plan.path}), recorded ${header.createdAt}${header.workspace ? ` from ${header.workspace}` : ''}; ${exchanges.length} exchanges`,
  ];
  for (const e of exchanges) {
    const tokens = e.usage ? ` ${e.usage.input_tokens}→${e.usage.output_tokens} tokens` : '';
    const time = e.chunks.at(-1)?.[0] ?? e.headMs;
    lines.push(
      `${String(e.seq).padStart(4)}  ${callerName(e.caller)} #${e.turn}  ${e.model ?? e.path}  ${e.status} in ${time} ms${tokens}${e.end === 'cut' ? ' (cut)' : ''}`,
    );
    lines.push(`        ${answerSummary(e)}`);
  }
  if (outcome) {
    lines.push(`outcome (${outcome.at}):`);
    for (const c of outcome.codons) {
      const gates = c.gates.map((g) => `${g.name} ${g.passed ? 'passed' : 'failed'}`).join(', ');
      lines.push(
        `  ${c.codonId}: ${c.status}, $${c.cost.toFixed(4)}${c.tree ? `, tree ${c.tree.slice(0, 12)}` : ''}${gates ? `, ${gates}` : ''}`,
      );
    }
  } else {
    lines.push('no outcome: the recorded run did not end');
  }
  return lines;
}
