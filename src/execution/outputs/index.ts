/** A codon's `outputFiles`, copied out of the agent root after it succeeds (docs/plans.md). */
export { type CopyOutputsResult, copyOutputs } from './copy-outputs.ts';
export { copyablePath, type OutputSelection, selectOutputs } from './select.ts';
