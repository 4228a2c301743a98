import { type ErrorCode, echo, type ReviewComment } from '../../core/protocol/index.ts';
import { err, ok, type Result } from '../../core/result.ts';

/**
 * Which comments a review.submit sends (docs/review.md#sending-a-review): those it names, each a
 * comment on that codon, in the order they were made; else every comment on the codon no review has
 * sent, made since its latest start (`earlierIds`: those made before, on an earlier run, go only
 * when named: a redo would otherwise carry answers to changes that are gone). Pure.
 */
export function selectComments(
  codonId: string,
  comments: readonly ReviewComment[],
  which: {
    sentIds: ReadonlySet<string>;
    earlierIds?: ReadonlySet<string>;
    named?: readonly string[] | undefined;
  },
): Result<ReviewComment[], { code: ErrorCode; message: string }> {
  const { sentIds, named } = which;
  const earlier = which.earlierIds ?? new Set<string>();
  if (named) {
    const unknown = named.filter((id) => !comments.some((c) => c.commentId === id));
    if (unknown.length > 0) {
      const ids = comments.map((c) => c.commentId);
      const has = ids.length === 0 ? 'it has none' : `its comments: ${ids.slice(-20).join(', ')}`;
      return err({
        code: 'UNKNOWN_COMMENT',
        message: `no comment ${unknown.map((id) => `"${echo(id, 80)}"`).join(', ')} on codon ${codonId}; ${has}`,
      });
    }
    const wanted = new Set(named);
    return ok(comments.filter((c) => wanted.has(c.commentId)));
  }
  const unsent = comments.filter((c) => !sentIds.has(c.commentId));
  const current = unsent.filter((c) => !earlier.has(c.commentId));
  if (current.length > 0) return ok(current);
  const n = unsent.length;
  return err({
    code: 'INVALID_COMMAND',
    message:
      comments.length === 0
        ? `codon ${codonId} has no comments to send; comment on its diff first (review.comment)`
        : n > 0
          ? `codon ${codonId} has no comment not sent since its latest start; ${n === 1 ? 'the 1 not sent is' : `the ${n} not sent are`} on an earlier run: name ${n === 1 ? 'it' : 'them'} to send ${n === 1 ? 'it' : 'them'} (commentIds), or comment on its diff first (review.comment)`
          : `every comment on codon ${codonId} (${comments.length}) was sent already; name those to send again (commentIds), or comment first (review.comment)`,
  });
}
