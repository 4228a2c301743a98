import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** What an execution's agent root was cloned from: `<execution>/.ribosome/workspace.json`. */
export const WorkspaceRecord = z.object({
  repo: z.string().describe('Absolute path of the repository as given (after resolving a relative path).'),
  ref: z.string().nullable().describe('The ref as given after @; null: the repository HEAD.'),
  commit: z.string().describe('The commit the ref resolved to, which the agent root started from.'),
  branch: z.string().nullable().describe('The branch checked out in the clone; null: detached.'),
  clonedAt: z.string().describe('ISO time of the clone.'),
});
export type WorkspaceRecord = z.infer<typeof WorkspaceRecord>;

export function workspaceRecordPath(executionDir: string): string {
  return join(executionDir, '.ribosome', 'workspace.json');
}

/** The recorded workspace, or undefined when there is none (or it cannot be read as one). */
export function readWorkspaceRecord(executionDir: string): WorkspaceRecord | undefined {
  let text: string;
  try {
    text = readFileSync(workspaceRecordPath(executionDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = WorkspaceRecord.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export async function writeWorkspaceRecord(executionDir: string, record: WorkspaceRecord): Promise<void> {
  const file = workspaceRecordPath(executionDir);
  await writeFile(`${file}.tmp`, `${JSON.stringify(record, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
}
