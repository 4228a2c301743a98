import type { ServerEvent } from '../../core/protocol/index.ts';
import type { SecretRedactor } from '../../platform/credentials/secret-redactor.ts';

/**
 * What the bus does to every event before it is journaled: the server's secret values replaced by
 * their markers (docs/operations.md#secrets-in-the-journal), in any field. A gate's output comes in
 * `verify.output` chunks; a value cut between two of them is caught as the second one comes, so no
 * event holds it whole. Cheap when there is nothing to find: one scan of the JSON already made.
 */
export class EventRedaction {
  readonly #secrets: SecretRedactor;
  /** The end of each gate stream's output so far, as printed (codon, gate, stream). */
  readonly #tails = new Map<string, string>();

  constructor(secrets: SecretRedactor) {
    this.#secrets = secrets;
  }

  /** `event` and its JSON, redacted: the same ones when they show no secret. */
  event(event: ServerEvent, json: string): { event: ServerEvent; json: string } {
    if (this.#secrets.empty) return { event, json };
    if (event.type === 'verify.output') return this.#chunk(event, json);
    if (event.type === 'verify.started' || event.type === 'verify.completed') {
      for (const stream of ['stdout', 'stderr']) this.#tails.delete(streamKey(event.data, stream));
    }
    if (!this.#secrets.contains(json)) return { event, json };
    const redacted = { ...event, data: this.#secrets.value(event.data) } as ServerEvent;
    return { event: redacted, json: JSON.stringify(redacted) };
  }

  /** Any JSON-like value redacted (a transition before it is stored); the same one when clean. */
  value<T>(value: T): T {
    return this.#secrets.empty ? value : this.#secrets.value(value);
  }

  #chunk(
    event: Extract<ServerEvent, { type: 'verify.output' }>,
    json: string,
  ): { event: ServerEvent; json: string } {
    const key = streamKey(event.data, event.data.stream);
    const before = this.#tails.get(key) ?? '';
    const printed = event.data.text;
    this.#tails.set(key, (before + printed).slice(-this.#secrets.carry));
    const text = this.#secrets.continuation(before, printed);
    if (text === printed) return { event, json };
    const out = { ...event, data: { ...event.data, text } };
    return { event: out, json: JSON.stringify(out) };
  }
}

const streamKey = (data: { codonId: string; gate: number }, stream: string) =>
  `${data.codonId}\0${data.gate}\0${stream}`;
