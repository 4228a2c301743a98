import type { EventData } from '../../core/protocol/index.ts';
import { ENDED_WITH_CODON, oneLine } from '../model/format.ts';
import { answeredCall } from '../model/paired-call.ts';

type Call = { codonId: string; toolName: string; toolUseId?: string; content: string };

/**
 * The tool calls a console view printed whose results have not come, paired with their results as
 * every view pairs them (answeredCall, src/clients/model/paired-call.ts). A codon's end (or its new
 * attempt) ends the calls still waiting.
 */
export function waitingCalls() {
  const open: Call[] = [];
  return {
    call(d: EventData<'assistant.action'>): void {
      if (d.action !== 'tool_use') return;
      const toolName = d.toolName ?? d.content.split(' ')[0] ?? 'tool';
      open.push({
        codonId: d.codonId,
        toolName,
        content: d.content,
        ...(d.toolUseId === undefined ? {} : { toolUseId: d.toolUseId }),
      });
    },
    /** The call `d` answers, taken from the waiting ones; undefined when none waits for it. */
    result(d: EventData<'tool.result'>): Call | undefined {
      const newest = open.length - 1;
      const k = answeredCall(open.length, (k) => open[newest - k], d);
      return k < 0 ? undefined : open.splice(newest - k, 1)[0];
    },
    /** The codon's calls still waiting, taken: they ended with it. */
    end(codonId: string): Call[] {
      const ended = open.filter((c) => c.codonId === codonId);
      if (ended.length > 0) open.splice(0, open.length, ...open.filter((c) => c.codonId !== codonId));
      return ended;
    },
  };
}

/** A call that ended with its codon, as the console prints it: its call line with the mark the other views show. */
export function endedCallLine(call: { content: string }): string {
  return `    tool  ${oneLine(call.content, 160)}  · ${ENDED_WITH_CODON}`;
}
