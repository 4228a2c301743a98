/**
 * How an estimated cost reads wherever one is shown (docs/agents.md: an agent that reports tokens but
 * no cost is priced from Ribosome's table): `~$0.0604`, with one legend line where there is room. Pure.
 */

/** Put before a cost (or a total) that is, at least in part, Ribosome's estimate. */
export const ESTIMATE_MARK = '~';

/** The legend of the mark, for a UI with a line to spare. */
export const ESTIMATE_LEGEND =
  '~ marks an estimate: Ribosome priced the tokens of an agent that reports no cost (Codex, Gemini CLI) from its price table';

/** `text` (a formatted cost) marked when `estimated`. */
export const markEstimate = (text: string, estimated: boolean | undefined): string =>
  estimated ? `${ESTIMATE_MARK}${text}` : text;
