import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importEdges, packageImports } from '../../scripts/import-graph.ts';

/**
 * The clients layer inside: the client model (src/clients/model) is what every UI shares, so it knows
 * no UI and no UI library; the React hooks both UIs share (src/clients/hooks) know no UI either; the
 * dashboard and the terminal UI know nothing of each other, nor of the CLI.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const folderOf = (file: string) => file.split('/').slice(0, 3).join('/');
const edges = importEdges(ROOT);
const packages = packageImports(ROOT);

/** The imports from `folder` into any of `forbidden`, as `from -> to` lines. */
const importsInto = (folder: string, forbidden: readonly string[]) =>
  edges
    .filter((e) => folderOf(e.from) === `src/clients/${folder}`)
    .filter((e) => forbidden.some((f) => folderOf(e.to) === `src/clients/${f}`))
    .map((e) => `${e.from} -> ${e.to}`);

const UI_LIBRARIES = /^(ink|ink-.*|react|react-.*)$/;
const uiLibrariesOf = (folder: string) =>
  packages
    .filter((p) => folderOf(p.from) === `src/clients/${folder}` && UI_LIBRARIES.test(p.pkg))
    .map((p) => `${p.from} imports ${p.pkg}`);

describe('the clients layer', () => {
  it('the model imports from no other client folder: no UI, no CLI, no hooks', () => {
    expect(importsInto('model', ['tui', 'web', 'cli', 'hooks', 'runs', 'doctor'])).toEqual([]);
  });

  it('the model imports neither Ink nor React', () => {
    expect(uiLibrariesOf('model')).toEqual([]);
  });

  it('the shared hooks know no UI, and not Ink', () => {
    expect(importsInto('hooks', ['tui', 'web', 'cli'])).toEqual([]);
    expect(uiLibrariesOf('hooks').filter((line) => /imports ink/.test(line))).toEqual([]);
  });

  it('the dashboard imports nothing from the terminal UI or the CLI', () => {
    expect(importsInto('web', ['tui', 'cli'])).toEqual([]);
  });

  it('the terminal UI imports nothing from the dashboard', () => {
    expect(importsInto('tui', ['web'])).toEqual([]);
  });

  it('the terminal UI, the dashboard and the console view share the model', () => {
    const users = new Set(
      edges.filter((e) => folderOf(e.to) === 'src/clients/model').map((e) => folderOf(e.from)),
    );
    expect([...users].sort()).toEqual(
      expect.arrayContaining(['src/clients/cli', 'src/clients/tui', 'src/clients/web']),
    );
  });
});
