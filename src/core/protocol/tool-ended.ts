/**
 * The `tool.result` text of a call still open when its agent's run was ended from outside (a stop, halt,
 * timeout or crash): the agents' translators write it, and every view shows such a result as "ended with
 * the codon" rather than as a failure the call earned.
 */
export const ENDED_FROM_OUTSIDE = 'ended with the codon before it finished; its result was not reported';
