/** Request bodies above this get 413; Claude Code requests with long histories stay far below it. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** A non-streaming answer can take minutes of silence, so the idle timeout is generous; 0 = none. */
export const DEFAULT_IDLE_TIMEOUT_MS = 600_000;
