import type { CheckpointRecord } from '../checkpoints/index.ts';

const CONTROL = /\p{Cc}+/gu;
const oneLine = (text: string) => text.replace(CONTROL, ' ').trim();

/** The message of a codon's exported commit: its name, then its id, run and checkpoint as trailers. */
export function codonCommitMessage(checkpoint: CheckpointRecord): string {
  const subject = oneLine(checkpoint.codonName) || oneLine(checkpoint.codonId) || 'codon';
  return [
    subject,
    '',
    `Ribosome-Codon-Id: ${oneLine(checkpoint.codonId)}`,
    `Ribosome-Run: ${oneLine(checkpoint.runId)}`,
    `Ribosome-Checkpoint: ${checkpoint.sha}`,
    `Ribosome-Timestamp: ${oneLine(checkpoint.timestamp)}`,
    '',
  ].join('\n');
}

/** The message of the first commit of a branch exported without a workspace: the starting tree. */
export function initialCommitMessage(checkpoint: CheckpointRecord): string {
  return [
    'Starting point of the Ribosome run',
    '',
    `Ribosome-Run: ${oneLine(checkpoint.runId)}`,
    `Ribosome-Checkpoint: ${checkpoint.sha}`,
    '',
  ].join('\n');
}
