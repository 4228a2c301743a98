import bash from 'highlight.js/lib/languages/bash';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { createLowlight } from 'lowlight';

/**
 * Syntax highlighting for the diff and the tool views (pure): highlight.js grammars through lowlight,
 * which gives a tree of spans and texts, never HTML. The page renders the tokens as text nodes, so
 * agent text reaches the DOM only as text (it is made safe with displayText before it gets here).
 * A handful of grammars, registered one by one, keep the bundle small (about 48 KiB minified);
 * the TypeScript grammar reads JavaScript too.
 */
const lowlight = createLowlight({ typescript, json, python, bash, xml, yaml, markdown, go, rust, ini });

const BY_EXTENSION: Readonly<Record<string, string>> = {
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'typescript',
  jsx: 'typescript',
  mjs: 'typescript',
  cjs: 'typescript',
  json: 'json',
  jsonl: 'json',
  py: 'python',
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  html: 'xml',
  htm: 'xml',
  xml: 'xml',
  svg: 'xml',
  yaml: 'yaml',
  yml: 'yaml',
  md: 'markdown',
  markdown: 'markdown',
  go: 'go',
  rs: 'rust',
  toml: 'ini',
  ini: 'ini',
  cfg: 'ini',
};

/** The grammar for a file by its extension; undefined when none of ours reads it (shown plain). */
export function languageOf(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return undefined;
  return BY_EXTENSION[name.slice(dot + 1).toLowerCase()];
}

/** A run of text and the highlight classes it carries (`hljs-keyword`...; none for plain text). */
export type Token = { text: string; cls?: string };
export type TokenLine = readonly Token[];

/** Past this many characters a block is shown plain: highlighting a huge file would stall the page. */
export const MAX_HIGHLIGHT_CHARS = 200_000;

type Node = { type: string; value?: string; properties?: { className?: unknown }; children?: Node[] };

/**
 * `code` highlighted and cut into lines (as many as `code.split('\n')` gives), each a list of
 * tokens; undefined for no language or too long a text (the caller shows it plain).
 */
export function highlightLines(code: string, language: string | undefined): TokenLine[] | undefined {
  if (language === undefined || code.length > MAX_HIGHLIGHT_CHARS) return undefined;
  let tree: Node;
  try {
    tree = lowlight.highlight(language, code) as Node;
  } catch {
    return undefined;
  }
  const lines: Token[][] = [[]];
  const walk = (node: Node, cls: string | undefined) => {
    if (node.type === 'text') {
      const parts = (node.value ?? '').split('\n');
      parts.forEach((text, i) => {
        if (i > 0) lines.push([]);
        if (text !== '') lines[lines.length - 1]?.push(cls === undefined ? { text } : { text, cls });
      });
      return;
    }
    const names = node.properties?.className;
    const own = Array.isArray(names) ? names.join(' ') : undefined;
    for (const child of node.children ?? []) walk(child, own || cls);
  };
  walk(tree, undefined);
  return lines;
}
