import { type Address, formatAddress, parseAddress } from './model/address.ts';

/** The page's address as model/address.ts reads it. */
export const readAddress = (): Address => parseAddress(window.location.hash);

/**
 * Changes part of the address: a new history entry (`push`: a view changed, so Back returns to the
 * one before), or in place (a codon or checkpoint picked). An undefined part is taken out.
 */
export function writeAddress(patch: { [K in keyof Address]?: Address[K] | undefined }, push = false): void {
  const next = formatAddress({ ...readAddress(), ...patch });
  if (next === (window.location.hash || '#')) return;
  const url = `${window.location.pathname}${window.location.search}${next}`;
  if (push) window.history.pushState(null, '', url);
  else window.history.replaceState(null, '', url);
}
