/** Reads a provider script from a YAML or JSON file into a validated Script, errors as values. */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { type Script, ScriptSchema } from './script-schema.ts';

export type ScriptErrorCode = 'SCRIPT_UNREADABLE' | 'SCRIPT_SYNTAX' | 'SCRIPT_INVALID';
export type ScriptError = { code: ScriptErrorCode; message: string };
export type ScriptResult = { ok: true; script: Script } | { ok: false; error: ScriptError };

/** Validates an already-parsed script (from a file, or an object literal in a test). */
export function parseScript(value: unknown, source = 'script'): ScriptResult {
  const parsed = ScriptSchema.safeParse(value ?? {});
  if (parsed.success) return { ok: true, script: parsed.data };
  return {
    ok: false,
    error: {
      code: 'SCRIPT_INVALID',
      message: `${source} is not a valid script:\n${z.prettifyError(parsed.error)}`,
    },
  };
}

/** Parses script text; YAML is a superset of JSON, so one parser reads both. */
export function parseScriptText(text: string, source = 'script'): ScriptResult {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return { ok: false, error: { code: 'SCRIPT_SYNTAX', message: `${source}: ${detail}` } };
  }
  return parseScript(value, source);
}

export async function loadScript(path: string): Promise<ScriptResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      error: { code: 'SCRIPT_UNREADABLE', message: `cannot read script ${path}: ${detail}` },
    };
  }
  return parseScriptText(text, path);
}
