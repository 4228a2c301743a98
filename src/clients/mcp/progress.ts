import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

/** Says what a long tool just did (`codon edit-hello completed: 2/3 codons done`). */
export type Progress = (message: string) => void;

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * MCP progress notifications for a request that asked for them (it carries a progressToken); a
 * do-nothing reporter otherwise. MCP wants `progress` to grow with each notification whatever the
 * work is, so it counts the steps said; the codons done are in the message.
 */
export function progressOf(extra: ToolExtra): Progress {
  const token = extra._meta?.progressToken;
  if (token === undefined) return () => {};
  let step = 0;
  return (message) => {
    step += 1;
    const params = { progressToken: token, progress: step, message };
    // A client that went away misses the notification; the tool goes on and answers as it can.
    extra.sendNotification({ method: 'notifications/progress', params }).catch(() => {});
  };
}
