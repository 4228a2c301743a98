/** A tool call still waiting for its result, as every view keeps it. */
export type WaitingCall = {
  codonId?: string | undefined;
  toolName?: string | undefined;
  toolUseId?: string | undefined;
};

/**
 * Which waiting call a tool.result answers, the one rule of the TUI, the dashboard and `ribosome log`:
 * among `count` candidates, newest first (`at(0)` the newest; undefined for one that is not waiting),
 * the latest call of the result's codon with its toolUseId (a scripted provider may replay ids on a
 * redo); a call without an id (a journal written before assistant.action carried one) pairs by the
 * old rule: the oldest call of the same tool in the codon. Returns that k, or -1. Pure.
 */
export function answeredCall(
  count: number,
  at: (k: number) => WaitingCall | undefined,
  result: { codonId: string; toolName: string; toolUseId?: string | undefined },
): number {
  let legacy = -1;
  for (let k = 0; k < count; k++) {
    const call = at(k);
    if (call?.codonId !== result.codonId) continue;
    if (call.toolUseId === undefined) {
      if (call.toolName === result.toolName) legacy = k;
    } else if (call.toolUseId === result.toolUseId) return k;
  }
  return legacy;
}
