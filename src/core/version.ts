import { readFileSync } from 'node:fs';

/** The package version, reported to clients in server.ready. */
export const SERVER_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
