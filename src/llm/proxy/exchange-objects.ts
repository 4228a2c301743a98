import type { Readable } from 'node:stream';
import type { LazyVendor } from './lazy-vendor.ts';
import type { ProxyHeaders, ProxyRequest, ProxyResponse } from './types.ts';
import type { VendorApiRequest } from './vendor-request.ts';

/*
 * The request and response objects handed to middleware, with properties computed only when read:
 * own enumerable accessors, so that a middleware's `{ ...request }` copies their values. Their getters
 * and setters are shared functions that find their exchange's state in private fields, never closures
 * made per exchange: V8 keeps an object's accessor pair in the old generation, and a closure it points
 * to (with all the exchange it captures) then outlives every young-generation GC until the next full
 * one. Made per exchange, they had the server copy and promote each exchange's objects (issue 36).
 */

let requestBody: PropertyDescriptor;
let requestVendor: PropertyDescriptor;

/**
 * The request as the agent sent it: `body` is decoded and `vendorRequestData` parsed (by `vendor`) only
 * if a middleware reads it.
 */
export class ReceivedRequest implements ProxyRequest {
  method: string;
  url: string;
  headers: ProxyHeaders;
  declare readonly body?: string;
  declare vendorRequestData?: VendorApiRequest;
  readonly #raw: Buffer;
  readonly #vendor: LazyVendor | undefined;
  #text: string | undefined;

  static {
    requestBody = {
      enumerable: true,
      configurable: true,
      get(this: ReceivedRequest) {
        if (this.#raw.length === 0) return undefined;
        this.#text ??= this.#raw.toString('utf8');
        return this.#text;
      },
    };
    requestVendor = {
      enumerable: true,
      configurable: true,
      get(this: ReceivedRequest) {
        return this.#vendor?.read();
      },
      set(this: ReceivedRequest, value: VendorApiRequest | undefined) {
        this.#vendor?.write(value);
      },
    };
  }

  constructor(
    method: string,
    url: string,
    headers: ProxyHeaders,
    raw: Buffer,
    vendor: LazyVendor | undefined,
  ) {
    this.method = method;
    this.url = url;
    this.headers = headers;
    this.#raw = raw;
    this.#vendor = vendor;
    Object.defineProperty(this, 'body', requestBody);
    // Only a Messages request has vendor data (spec 2.5).
    if (vendor) Object.defineProperty(this, 'vendorRequestData', requestVendor);
  }
}

let answerBody: PropertyDescriptor;

/**
 * The target's answer as response middleware get it: `body` is the target's body as a stream, made
 * by `open` only when a middleware reads it; one a middleware sets replaces it.
 */
export class ReceivedAnswer implements ProxyResponse {
  status: number;
  headers: ProxyHeaders;
  declare body?: ProxyResponse['body'];
  readonly #open: () => Readable;
  #stream: Readable | undefined;
  #replaced = false;
  #replacement: ProxyResponse['body'];

  static {
    answerBody = {
      enumerable: true,
      configurable: true,
      get(this: ReceivedAnswer) {
        if (this.#replaced) return this.#replacement;
        this.#stream ??= this.#open();
        return this.#stream;
      },
      set(this: ReceivedAnswer, value: ProxyResponse['body']) {
        this.#replaced = true;
        this.#replacement = value;
      },
    };
  }

  constructor(status: number, headers: ProxyHeaders, open: () => Readable) {
    this.status = status;
    this.headers = headers;
    this.#open = open;
    Object.defineProperty(this, 'body', answerBody);
  }

  /** Whether no middleware read or set the body of `answer`: the target's bytes can go straight on. */
  static untouched(answer: ReceivedAnswer): boolean {
    if (answer.#replaced || answer.#stream !== undefined) return false;
    // Deleted or defined anew (`delete response.body`: no body) is touched too.
    return Object.getOwnPropertyDescriptor(answer, 'body')?.get === answerBody.get;
  }
}
