import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ReviewSide, ReviewTarget } from '../../../core/protocol/index.ts';
import type { McpContext } from '../context.ts';
import { registerTool } from '../register.ts';
import { findTarget, liveUrl, withClient } from '../target.ts';
import { answer } from '../tool-result.ts';
import { executionArg } from './reading.ts';

/** A comment's quote takes a read of the shadow repository; a redo's rollback may take a while. */
const REVIEW_TIMEOUT_MS = 60_000;

/** Reviewing a codon's changes (docs/review.md): review_comment, review_submit. */
export function registerReviewTools(server: McpServer, context: McpContext): void {
  registerTool(server, context, {
    name: 'review_comment',
    title: 'Comment on a diff',
    description:
      "Comment on lines of a codon's diff (review.comment): by default its last run, from its start checkpoint to its end (codon_diff shows it). The server quotes the lines and journals the comment; lines the diff does not have are refused, saying which it has. review_submit sends comments on.",
    input: {
      execution: executionArg,
      codon: z.string().min(1).describe('The codon whose diff it is'),
      file: z.string().min(1).describe('The file, relative to the agent root, as the diff names it'),
      start: z.number().int().min(1).describe('First line commented on (1-based)'),
      end: z.number().int().min(1).optional().describe('Last line commented on (default: start)'),
      side: ReviewSide.default('new').describe(
        'new: line numbers of the file after the change (default); old: before it',
      ),
      text: z.string().min(1).describe('The comment (at most 16 KiB of UTF-8)'),
    },
    run: async ({ execution, codon, file, start, end, side, text }) => {
      const url = liveUrl(await findTarget(execution, context));
      return withClient(url, 'readandwrite', context, async (client) => {
        const clientId = client.clientId;
        const made = await client.request(
          'review.comment',
          { codonId: codon, file, side, lines: { start, end: end ?? start }, text },
          'review.comment',
          {
            timeoutMs: REVIEW_TIMEOUT_MS,
            match: (e) => e.data.author.kind === 'client' && e.data.author.clientId === clientId,
          },
        );
        const d = made.data;
        return answer(`comment ${d.commentId} on codon ${d.codonId} ${d.file}, quoting:\n${d.hunk}`, {
          commentId: d.commentId,
          codonId: d.codonId,
          hunk: d.hunk,
        });
      });
    },
  });

  registerTool(server, context, {
    name: 'review_submit',
    title: 'Send a review',
    description:
      "Send a codon's review comments on (review.submit): to: redo runs the codon again from its start with them in its prompt; message hands them to the running agent; next puts them in the next codon's prompt. Without commentIds, every comment on the codon not sent yet.",
    input: {
      execution: executionArg,
      codon: z.string().min(1).describe('The codon the comments are on'),
      to: ReviewTarget.describe('redo, message or next'),
      commentIds: z
        .array(z.string().min(1))
        .min(1)
        .optional()
        .describe('The comments to send (default: those not sent, made since the codon last started)'),
      note: z.string().min(1).optional().describe('A word to the agent above the comments (at most 4 KiB)'),
    },
    run: async ({ execution, codon, to, commentIds, note }) => {
      const url = liveUrl(await findTarget(execution, context));
      return withClient(url, 'readandwrite', context, async (client) => {
        const sent = await client.request(
          'review.submit',
          { codonId: codon, to, ...(commentIds ? { commentIds } : {}), ...(note ? { note } : {}) },
          'review.sent',
          { timeoutMs: REVIEW_TIMEOUT_MS, match: (e) => e.data.codonId === codon },
        );
        const d = sent.data;
        const where = d.targetCodonId ? ` (codon ${d.targetCodonId})` : '';
        return answer(
          `review of codon ${d.codonId} sent to ${d.to}${where}: ${d.commentIds.length} comment(s)`,
          {
            reviewId: d.reviewId,
            to: d.to,
            commentIds: d.commentIds,
            ...(d.targetCodonId ? { targetCodonId: d.targetCodonId } : {}),
          },
        );
      });
    },
  });
}
