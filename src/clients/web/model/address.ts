import { VIEWS, type ViewId } from '../keys.ts';

/**
 * What the page's address keeps (its hash, `#view=changes&codon=two&from=…&to=…`): the view, the
 * selected codon and the diff's two checkpoints, so a reload keeps them and Back and Forward move
 * between views. Pure: the page reads and writes `location.hash` with these.
 */
export type Address = { view?: ViewId; codon?: string; from?: string; to?: string };

const SHA = /^[0-9a-f]{4,64}$/;

export function parseAddress(hash: string): Address {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const view = VIEWS.find((v) => v.id === p.get('view'))?.id;
  const codon = p.get('codon') ?? '';
  const from = p.get('from') ?? '';
  const to = p.get('to') ?? '';
  return {
    ...(view ? { view } : {}),
    ...(codon ? { codon } : {}),
    ...(SHA.test(from) ? { from } : {}),
    ...(SHA.test(to) ? { to } : {}),
  };
}

/** `address` as a hash; `#` alone when it holds nothing. */
export function formatAddress(address: { [K in keyof Address]?: Address[K] | undefined }): string {
  const p = new URLSearchParams();
  for (const key of ['view', 'codon', 'from', 'to'] as const) {
    const value = address[key];
    if (value) p.set(key, value);
  }
  return `#${p.toString()}`;
}
