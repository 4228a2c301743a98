import type { GateResult, VerifyFailure } from './gate-result.ts';

/** How a gate failed, in words: `exited with code 1`, `timed out after 600000 ms`, ... */
export function howItFailed(r: GateResult): string {
  if (r.startFailure !== undefined) return `could not be started: ${r.startFailure}`;
  if (r.timedOut) return `timed out after ${r.timeoutMs} ms`;
  if (r.exitCode !== null) return `exited with code ${r.exitCode}`;
  return `was killed by ${r.signal ?? 'a signal'}`;
}

const tailBlock = (tail: string) =>
  tail.trim() === '' ? '(no output)' : `${tail.endsWith('\n') ? tail : `${tail}\n`}`;

/** The failureReason message of a codon whose gate failed: the command, how it ended, the output's tail. */
export function verifyFailureMessage(f: VerifyFailure): string {
  const rounds =
    f.feedbackRounds > 0 ? ` after ${f.feedbackRounds} feedback round${f.feedbackRounds > 1 ? 's' : ''}` : '';
  return `verification gate ${f.gate + 1}/${f.gates} \`${f.command}\` ${howItFailed(f)}${rounds}; output ends with:\n${tailBlock(f.outputTail)}`;
}

/** The prompt of a feedback round: the agent's session goes on with what the failing gate said. */
export function feedbackPrompt(r: GateResult): string {
  return [
    `The verification command \`${r.command}\` ${howItFailed(r)} after your changes.`,
    'The end of its output:',
    '',
    '```',
    tailBlock(r.outputTail).trimEnd(),
    '```',
    '',
    'Fix the cause so that the command passes, then stop.',
  ].join('\n');
}
