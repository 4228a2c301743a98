import { describe, expect, it } from 'vitest';
import { formatAddress, parseAddress } from '../../../../src/clients/web/model/address.ts';

describe("the page's address", () => {
  it('keeps the view, the codon and the diff’s checkpoints, and reads them back', () => {
    const address = { view: 'changes', codon: 'two words', from: 'abcdef12', to: '0123abcd' } as const;
    const hash = formatAddress(address);
    expect(hash).toBe('#view=changes&codon=two+words&from=abcdef12&to=0123abcd');
    expect(parseAddress(hash)).toEqual(address);
    expect(formatAddress({})).toBe('#');
  });

  it('leaves out what it does not know: another view, a checkpoint that is not a SHA', () => {
    expect(parseAddress('#view=nope&from=HEAD~1&to=abcd1234')).toEqual({ to: 'abcd1234' });
    expect(parseAddress('')).toEqual({});
  });
});
