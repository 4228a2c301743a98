/**
 * The tools of `ribosome mcp`, and which only read: `--readonly` offers those alone. Every writing
 * tool maps onto one protocol command (or a `ribosome run` / `ribosome export` of its own), never a
 * second engine path.
 */
export const READING_TOOLS = [
  'list_executions',
  'list_runs',
  'status',
  'recent_events',
  'codon_diff',
  'wait',
] as const;

export const WRITING_TOOLS = [
  'start_plan',
  'send_message',
  'skip_codon',
  'force_stop',
  'rollback',
  'redo_codon',
  'approve',
  'review_comment',
  'review_submit',
  'export',
  'stop_server',
] as const;

export type ToolName = (typeof READING_TOOLS)[number] | (typeof WRITING_TOOLS)[number];

/** The tools a server offers: the reading ones only when read-only. Pure. */
export function offeredTools(readonly: boolean): ToolName[] {
  return readonly ? [...READING_TOOLS] : [...READING_TOOLS, ...WRITING_TOOLS];
}
