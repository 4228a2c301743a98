/**
 * Persisted conversations, so `--resume <sessionId>` can continue one. A small interface with a file
 * version (one JSON file per session, replaced atomically) and an in-memory one for unit tests.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { MessageParamSchema } from '../../llm/schemas.ts';

export const SessionSchema = z.object({
  version: z.literal(1),
  sessionId: z.uuid(),
  model: z.string(),
  cwd: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  messages: z.array(MessageParamSchema),
});
export type Session = z.infer<typeof SessionSchema>;

export type SessionLoadError = {
  code: 'SESSION_NOT_FOUND' | 'SESSION_CORRUPT' | 'SESSION_ID_INVALID';
  message: string;
};
export type SessionLoad = { ok: true; session: Session } | { ok: false; error: SessionLoadError };

export type SessionStore = {
  load(sessionId: string): Promise<SessionLoad>;
  save(session: Session): Promise<void>;
};

const notFound = (sessionId: string): SessionLoad => ({
  ok: false,
  error: { code: 'SESSION_NOT_FOUND', message: `No conversation found with session ID: ${sessionId}` },
});

export function createFileSessionStore(dir: string): SessionStore {
  // Ids become file names: only uuids are accepted, so none can name a path elsewhere.
  const fileOf = (sessionId: string) => join(dir, `${sessionId}.json`);
  return {
    async load(sessionId) {
      if (!z.uuid().safeParse(sessionId).success) {
        return {
          ok: false,
          error: { code: 'SESSION_ID_INVALID', message: `Not a session ID: ${sessionId}` },
        };
      }
      let text: string;
      try {
        text = await readFile(fileOf(sessionId), 'utf8');
      } catch {
        return notFound(sessionId);
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined;
      }
      const parsed = SessionSchema.safeParse(value);
      if (!parsed.success) {
        return {
          ok: false,
          error: { code: 'SESSION_CORRUPT', message: `Session file ${fileOf(sessionId)} is damaged` },
        };
      }
      return { ok: true, session: parsed.data };
    },
    async save(session) {
      await mkdir(dir, { recursive: true });
      const target = fileOf(session.sessionId);
      const temp = `${target}.${process.pid}.tmp`;
      try {
        await writeFile(temp, `${JSON.stringify(session)}\n`, 'utf8');
        await rename(temp, target);
      } catch (error) {
        await rm(temp, { force: true }).catch(() => {});
        throw error;
      }
    },
  };
}

export function createMemorySessionStore(): SessionStore & { sessions: Map<string, Session> } {
  const sessions = new Map<string, Session>();
  return {
    sessions,
    async load(sessionId) {
      const session = sessions.get(sessionId);
      return session ? { ok: true, session: structuredClone(session) } : notFound(sessionId);
    },
    async save(session) {
      sessions.set(session.sessionId, structuredClone(session));
    },
  };
}
