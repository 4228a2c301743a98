import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Fake `claude` binaries (RIBOSOME_CLAUDE_BIN) that meet a Claude usage limit, for the tests of
 * limits shared between runs until the scripted provider plays a usage-limit answer for the built-in
 * agent; then those tests move to it. Each prints stream-json as Claude Code does headless: an init
 * line, then a `result` line, with our `usage_limit` field when limited.
 */

const VERSION = `if [ "$1" = "--version" ]; then echo "2.1.197 (Claude Code)"; exit 0; fi`;
const INIT = `echo '{"type":"system","subtype":"init","session_id":"s1"}'`;
const DONE = `echo '{"type":"result","subtype":"success","is_error":false,"result":"Done.","session_id":"s1","total_cost_usd":0}'`;
/** The usage-limit result, its reset `resetInMs` from the moment it is printed. */
const limited = (resetInMs: number) =>
  `at=$(( $(date +%s%3N) + ${resetInMs} ))
  echo '{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"Claude AI usage limit reached","usage_limit":{"resets_at_ms":'"$at"'},"session_id":"s1","total_cost_usd":0}'
  exit 1`;

function write(dir: string, name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${VERSION}\n${INIT}\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

/**
 * A fake claude. At each call it makes `announce` (a file) first, then waits until `awaits` (a shell
 * glob) names a file, 20 s at most, so a run that never gets there fails its test rather than hangs
 * it. Then `limitOnce`: the first call of all that share this directory (made atomically) meets a
 * usage limit that resets in `resetInMs`; every other call succeeds.
 */
export function usageLimitClaude(
  dir: string,
  name: string,
  options: { announce?: string; awaits?: string; limitOnce?: string; resetInMs?: number },
): string {
  const announce = options.announce === undefined ? '' : `touch '${options.announce}'\n`;
  const awaits =
    options.awaits === undefined
      ? ''
      : `n=0\nuntil ls ${options.awaits} >/dev/null 2>&1 || [ $n -ge 400 ]; do sleep 0.05; n=$((n+1)); done\n`;
  const limit =
    options.limitOnce === undefined
      ? ''
      : `if mkdir '${options.limitOnce}' 2>/dev/null; then\n  ${limited(options.resetInMs ?? 4_000)}\nfi\n`;
  return write(dir, name, `${announce}${awaits}${limit}${DONE}`);
}

/**
 * One fake claude for runs that share it (a batch's jobs get one environment): the first call of all
 * waits until a second call has begun, then meets a usage limit that resets in `resetInMs`; every
 * other call waits until `limits` has a record (20 s at most), then succeeds. So one job meets the
 * limit while another's codon is at work, whichever job it is.
 */
export function firstCallLimitedClaude(dir: string, options: { limits: string; resetInMs?: number }): string {
  const first = join(dir, 'first-call');
  const second = join(dir, 'second-call');
  const wait = (glob: string) =>
    `n=0\nuntil ls ${glob} >/dev/null 2>&1 || [ $n -ge 400 ]; do sleep 0.05; n=$((n+1)); done`;
  return write(
    dir,
    'claude-first-call-limited',
    `if mkdir '${first}' 2>/dev/null; then
${wait(`'${second}'`)}
  ${limited(options.resetInMs ?? 4_000)}
fi
touch '${second}'
${wait(`'${options.limits}'/*.json`)}
${DONE}`,
  );
}
