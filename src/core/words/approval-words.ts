/**
 * How an approval wait is said (docs/review.md#approval-gates): one wording for the engine's events
 * and every client's views, so the header, `ribosome runs` and the journal read alike.
 */

/** `design`, or `design (Design the API)` when its name says more than its id. */
export function codonLabel(codonId: string, codonName: string): string {
  return codonName === codonId ? codonId : `${codonId} (${codonName})`;
}

/** The three ways out of a wait, as a refusal and the idle say them (in the protocol's words). */
export function approvalWaysOut(codonId: string): string {
  return `approve it (approval.approve {"codonId":"${codonId}"}), request changes (review.submit to redo, or codon.redo), or roll back`;
}

/** `waiting for approval of codon design`. */
export function approvalWaitWords(wait: { codonId: string; codonName: string }): string {
  return `waiting for approval of codon ${codonLabel(wait.codonId, wait.codonName)}`;
}
