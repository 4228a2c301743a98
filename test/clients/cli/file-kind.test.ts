import { describe, expect, it } from 'vitest';
import { detectKind } from '../../../src/clients/cli/file-kind.ts';

describe('ribosome validate tells a file’s kind from what it holds', () => {
  it.each([
    // The issue 30 trial's config file: one misspelt key, no name. A plan would say "name" and "codons" are missing.
    ['settings.yaml', { proxyDoubleMaxToken: true }, 'config'],
    ['settings.yaml', { prot: 4000, budget: { maxCostUsd: 1 } }, 'config'],
    // Keys both kinds take, and nothing a plan must have: a config file.
    ['settings.yaml', { budget: { maxCostUsd: 1 }, notify: { webhook: 'http://127.0.0.1/' } }, 'config'],
    // By its name, whatever it holds.
    ['ribosome.config.yaml', { nmae: 'x' }, 'config'],
    ['config.json', {}, 'config'],
    ['ribosome-config.yml', {}, 'config'],
    // A plan's keys, misspelt or not, keep it a plan.
    ['plan.yaml', { nme: 'x', budget: { maxCostUsd: 1 } }, 'plan'],
    ['plan.yaml', { name: 'x', codon: [] }, 'plan'],
    ['ribosome.config.yaml', { codons: [] }, 'plan'],
    ['plan.yaml', {}, 'plan'],
    ['reconfig.yaml', {}, 'plan'],
  ] as const)('%s holding %j is a %s', (file, data, kind) => {
    expect(detectKind(file, data)).toBe(kind);
  });
});
