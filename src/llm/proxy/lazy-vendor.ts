import { parseVendorRequest, type VendorApiRequest } from './vendor-request.ts';
import { scanVendorSummary, summarizeVendorRequest, type VendorSummary } from './vendor-summary.ts';

/**
 * The `vendorRequestData` of one Messages request, parsed from the agent's bytes only when a middleware
 * first reads it (or sets it): the proxy's own LoggingMiddleware makes do with a scan, so an exchange
 * no middleware looks into costs no parse and is forwarded byte for byte (issue 16).
 */
export class LazyVendor {
  readonly #raw: Buffer;
  #parsed = false;
  /** What the agent's bytes parse to (spec 2.5: undefined when they are no Messages request). */
  #original: VendorApiRequest | undefined;
  /** What middleware reads: the parse, or what a middleware set in its place. */
  #current: VendorApiRequest | undefined;
  #touched = false;

  constructor(raw: Buffer) {
    this.#raw = raw;
  }

  /** Whether a middleware read or set `vendorRequestData` (then the body is rebuilt from it, spec 8). */
  get touched(): boolean {
    return this.#touched;
  }

  /** The parse of the agent's body, done once; undefined when it is not a Messages request. */
  original(): VendorApiRequest | undefined {
    if (!this.#parsed) {
      this.#parsed = true;
      this.#original = parseVendorRequest(this.#raw);
      if (!this.#touched) this.#current = this.#original;
    }
    return this.#original;
  }

  /** The getter of `vendorRequestData`. */
  read(): VendorApiRequest | undefined {
    const value = this.#touched ? this.#current : this.original();
    this.#touched = true;
    return value;
  }

  /** The setter of `vendorRequestData`. */
  write(value: VendorApiRequest | undefined): void {
    this.#touched = true;
    this.#current = value;
  }

  /**
   * What LoggingMiddleware logs: from the data middleware may have edited once someone touched it,
   * else from a scan of the bytes (a parse only when the scan is unsure). Touches nothing.
   */
  summary(): VendorSummary | undefined {
    if (this.#touched) return this.#current ? summarizeVendorRequest(this.#current) : undefined;
    if (!this.#parsed) {
      const scanned = scanVendorSummary(this.#raw);
      if (scanned) return scanned;
    }
    const parsed = this.original();
    return parsed ? summarizeVendorRequest(parsed) : undefined;
  }
}
