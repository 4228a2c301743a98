/** Why a batch cannot be emitted for a cluster or a CI system, with a code a caller can switch on. */
export type EmitErrorCode =
  /** A file the manifests must carry (the batch file, a job's plan) was not given. */
  | 'EMIT_FILE_MISSING'
  /** The files to carry are over what one ConfigMap holds. */
  | 'EMIT_TOO_LARGE'
  /** The batch with its plan paths rewritten would not expand to the same jobs in the pod. */
  | 'EMIT_JOBS_CHANGED'
  /** More jobs than the target runs from one batch (GitHub Actions: 256 per matrix). */
  | 'EMIT_TOO_MANY_JOBS';

export class EmitError extends Error {
  readonly code: EmitErrorCode;
  constructor(code: EmitErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
