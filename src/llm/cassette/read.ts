/**
 * Reads a cassette file (schema.ts): every line checked, a clear error naming the line that is not
 * one. A last line cut short (a recording killed while it wrote) is left out, as it never ended.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CASSETTE_FILE, type Cassette, CassetteLineSchema, type ExchangeLine } from './schema.ts';

export class CassetteError extends Error {
  readonly code = 'CASSETTE_INVALID';
}

/** The cassette file an argument names: the file itself, or an execution directory's. */
export function cassettePath(given: string): string {
  try {
    if (statSync(given).isDirectory()) return join(given, CASSETTE_FILE);
  } catch {}
  return given;
}

/** Parses a cassette's text; `name` is how errors name it. */
export function parseCassette(text: string, name: string): Cassette {
  const lines = text.split('\n');
  // After the final newline nothing, or a line being written when the recording stopped: left out.
  lines.pop();
  const exchanges: ExchangeLine[] = [];
  let header: Cassette['header'] | undefined;
  let outcome: Cassette['outcome'];
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new CassetteError(`${name}:${index + 1}: not a JSON line; is this a cassette (cassette.jsonl)?`);
    }
    const type = typeof json === 'object' && json !== null ? (json as { type?: unknown }).type : undefined;
    if (type !== 'cassette' && type !== 'exchange' && type !== 'outcome') {
      throw new CassetteError(
        `${name}:${index + 1}: not a cassette line (its type is ${JSON.stringify(type) ?? 'missing'}; a cassette has cassette, exchange and outcome lines)`,
      );
    }
    const parsed = CassetteLineSchema.safeParse(json);
    if (!parsed.success) {
      throw new CassetteError(`${name}:${index + 1}: ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}`);
    }
    const entry = parsed.data;
    if (index === 0 && entry.type !== 'cassette') {
      throw new CassetteError(`${name}:1: a cassette starts with its header line (type "cassette")`);
    }
    if (entry.type === 'cassette') header ??= entry;
    else if (entry.type === 'exchange') exchanges.push(entry);
    else outcome = entry;
  }
  if (!header) throw new CassetteError(`${name}: empty; a cassette starts with its header line`);
  return { header, exchanges, ...(outcome ? { outcome } : {}) };
}

/** Reads the cassette an argument names (a file, or an execution directory holding one). */
export function readCassette(given: string): { path: string; cassette: Cassette } {
  const path = cassettePath(given);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CassetteError(
      code === 'ENOENT'
        ? `${path}: no cassette there; record one with \`ribosome run --record\``
        : `${path}: cannot read the cassette: ${(error as Error).message}`,
    );
  }
  return { path, cassette: parseCassette(text, path) };
}
