import { OFFLINE_KEY } from './credentials.ts';

/**
 * The secret values the server knows (provider keys, the access token, the proxy's agent
 * credential), each replaced by `[redacted:<NAME>]` wherever it shows in text: as it is, URL-encoded,
 * and base64 (standard and URL-safe, at any of the three alignments a value can have inside a longer
 * encoded text, so `Basic base64(user:key)` is caught too). Values only ever added; pure apart from
 * that set.
 */

/** Shorter values are not redacted: they would mask ordinary words, and protect nothing. */
export const MIN_SECRET_LENGTH = 8;

/** What stands for a secret named `name` in journaled text. */
export const redactedMarker = (name: string): string => `[redacted:${name}]`;

type Form = { text: string; marker: string };

export class SecretRedactor {
  /** Every form of every value, longest first, so a value inside a longer one never splits it. */
  #forms: Form[] = [];
  /** Forms as JSON text shows them, when JSON escapes a character of theirs. */
  #jsonForms: string[] = [];
  readonly #values = new Set<string>();
  #longest = 0;
  /** Every form as one pattern (built when first needed): one scan finds them all, about 20 times faster than a scan per form. */
  #pattern: { any: RegExp; all: RegExp; markers: Map<string, string> } | undefined;

  /**
   * Adds `value` under `name` (a variable's name, or a word such as `access-token`). Nothing when it
   * is unset, shorter than MIN_SECRET_LENGTH, the scripted provider's placeholder, or known already.
   */
  add(name: string, value: string | undefined): void {
    if (value === undefined || value.length < MIN_SECRET_LENGTH || value === OFFLINE_KEY) return;
    if (this.#values.has(value)) return;
    this.#values.add(value);
    // A name the plan chose must not make the marker read as something else.
    const marker = redactedMarker(name.replace(/[^A-Za-z0-9_.:-]/g, '_'));
    const texts = new Set([value, encodeURIComponent(value), ...base64Forms(value)]);
    for (const text of texts) {
      this.#forms.push({ text, marker });
      const json = JSON.stringify(text).slice(1, -1);
      if (json !== text) this.#jsonForms.push(json);
    }
    this.#forms.sort((a, b) => b.text.length - a.text.length);
    this.#longest = Math.max(this.#longest, ...this.#forms.map((f) => f.text.length));
    this.#pattern = undefined;
  }

  #compiled(): { any: RegExp; all: RegExp; markers: Map<string, string> } {
    if (this.#pattern) return this.#pattern;
    const markers = new Map<string, string>();
    for (const form of this.#forms) if (!markers.has(form.text)) markers.set(form.text, form.marker);
    // Longest first: at one position the longest form wins.
    const source = this.#forms.map((form) => escapeRegExp(form.text)).join('|');
    const json = this.#jsonForms.map(escapeRegExp);
    this.#pattern = {
      any: new RegExp([source, ...json].join('|')),
      all: new RegExp(source, 'g'),
      markers,
    };
    return this.#pattern;
  }

  /** Adds each of `names` that `env` holds a value for, under its own name. */
  addFromEnv(env: NodeJS.ProcessEnv, names: Iterable<string>): void {
    for (const name of names) this.add(name, env[name]);
  }

  /** Whether nothing is known: redaction is then the identity. */
  get empty(): boolean {
    return this.#forms.length === 0;
  }

  /** Whether `text` (plain, or a JSON document) shows any known value in any form. */
  contains(text: string): boolean {
    return this.#forms.length > 0 && this.#compiled().any.test(text);
  }

  /** `text` with every known value replaced by its marker. */
  text(text: string): string {
    if (this.#forms.length === 0) return text;
    const { all, markers } = this.#compiled();
    return text.replace(all, (found) => markers.get(found) ?? found);
  }

  /**
   * A JSON-like value with every string in it (keys too) redacted: the same object when nothing
   * changed, a copy otherwise; the input is never changed.
   */
  value<T>(value: T): T {
    if (this.#forms.length === 0) return value;
    return this.#walk(value) as T;
  }

  #walk(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) {
      let changed = false;
      const out = value.map((item) => {
        const next = this.#walk(item);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? out : value;
    }
    if (typeof value === 'object' && value !== null) {
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const nextKey = this.text(key);
        const next = this.#walk(item);
        if (next !== item || nextKey !== key) changed = true;
        out[nextKey] = next;
      }
      return changed ? out : value;
    }
    return value;
  }

  /**
   * The next chunk of a stream cut into pieces (a gate's output): `text` redacted, and also the part
   * of a value that began in the chunks before it (`before`: the end of what came before, as it was
   * printed) and ends in this one. The earlier chunk keeps the value's start, never the whole value.
   */
  continuation(before: string, text: string): string {
    let head = 0;
    let marker = '';
    if (before !== '') {
      const joined = before + text;
      for (const form of this.#forms) {
        // An occurrence that starts in `before` and ends in `text`.
        let at = joined.indexOf(form.text, Math.max(0, before.length - form.text.length + 1));
        while (at !== -1 && at < before.length) {
          const end = at + form.text.length;
          if (end > before.length && end - before.length > head) {
            head = end - before.length;
            marker = form.marker;
          }
          at = joined.indexOf(form.text, at + 1);
        }
      }
    }
    return head === 0 ? this.text(text) : marker + this.text(text.slice(head));
  }

  /** How much of a stream's end `continuation` needs to see: one less than the longest form. */
  get carry(): number {
    return Math.max(0, this.#longest - 1);
  }
}

/**
 * The base64 texts that show `value` wherever it sits in an encoded text: for each of the three
 * alignments, the encoding of the whole 3-byte groups from there (a few characters at each end
 * depend on the neighbouring bytes, so they stay), standard and URL-safe.
 */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const out: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    // At least as long as the shortest value redacted, so a form is never a common word.
    if (whole < 9) continue;
    const slice = bytes.subarray(skip, skip + whole);
    out.push(slice.toString('base64'), slice.toString('base64url'));
  }
  return out;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
