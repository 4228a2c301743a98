/** A codon's `outputFiles`, copied out of the agent root after it succeeds (README "Plans"). */
export { type CopyOutputsResult, copyOutputs } from './copy-outputs.ts';
export { copyablePath, type OutputSelection, selectOutputs } from './select.ts';
