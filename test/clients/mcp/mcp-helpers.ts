import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parse, stringify } from 'yaml';
import { isAlive } from '../../../src/platform/processes/process-tree.ts';
import { BIN, ROOT } from '../../helpers/server-process.ts';

export const DEMO_PLAN = join(ROOT, 'examples/demo/plan.yaml');

/**
 * The demo's script with two more agent turns: a redo of codon two edits hello.txt again (after a
 * rollback to its start, the file is back to codon one's greeting).
 */
export function demoScriptWithRedo(dir: string): string {
  const script = parse(readFileSync(join(ROOT, 'examples/scripts/demo.yaml'), 'utf8')) as {
    turns: unknown[];
    defaults?: Record<string, unknown>;
  };
  script.turns.push(
    {
      content: [
        {
          tool_use: {
            name: 'Edit',
            input: {
              file_path: 'hello.txt',
              old_string: 'Hello from Ribosome!',
              new_string: 'Hello from Ribosome, edited again by the redo!',
            },
          },
        },
      ],
    },
    { content: [{ text: 'Edited hello.txt again.' }] },
  );
  // No pauses between chunks: nobody watches this run.
  script.defaults = { ...script.defaults, chunkDelayMs: 0 };
  const file = join(dir, 'demo-with-redo.yaml');
  writeFileSync(file, stringify(script));
  return file;
}

/** `ribosome mcp ARGS` over stdio, driven by the SDK's client; its whole environment passed on (TMPDIR included). */
export async function mcpClient(cwd: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const transport = new StdioClientTransport({
    command: BIN,
    args: ['mcp', ...args],
    cwd,
    env: { ...(process.env as Record<string, string>), ...(env as Record<string, string>) },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const client = new Client({ name: 'ribosome-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** A tool's answer, with its text, and the progress notifications its call received. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const progress: string[] = [];
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    onprogress: (p) => progress.push(p.message ?? ''),
    timeout: 120_000,
  })) as CallToolResult;
  const first = result.content[0];
  const text = first?.type === 'text' ? first.text : '';
  return {
    result,
    text,
    progress,
    structured: result.structuredContent as Record<string, unknown> | undefined,
  };
}

/** Ends a background run's process group (what start_plan started) if it still runs. */
export function endRun(pid: number | undefined): void {
  if (pid === undefined || !isAlive(pid)) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone meanwhile.
  }
}
