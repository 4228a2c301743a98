/**
 * Request bodies above this get 413. Claude Code requests with long histories stay far below it;
 * one with several screenshots (base64, about 4/3 of the image bytes) can reach a few MiB each.
 */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Request bytes the proxy holds at once across all exchanges; past it new requests get 503 with
 * retry-after. A body is held until its exchange ends (streams included), and its parsed copy costs
 * about as much again, so this bounds the proxy's memory for bodies to about twice this figure.
 */
export const DEFAULT_MAX_IN_FLIGHT_BYTES = 256 * 1024 * 1024;

/** What a 503 for a full in-flight budget asks the agent to wait; SDKs retry 503 after it. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/** A non-streaming answer can take minutes of silence, so the idle timeout is generous; 0 = none. */
export const DEFAULT_IDLE_TIMEOUT_MS = 600_000;
