import { CheckpointMeta } from './schema.ts';

/**
 * Checkpoint commit messages: a readable subject, then one git trailer per field, so `git log` shows
 * them and `git interpret-trailers` can read them. A value that a trailer line cannot hold verbatim
 * (empty, a line break, edge whitespace, a leading quote) is written as a JSON string.
 */

const FORMAT_KEY = 'Ribosome-Checkpoint';
const FORMAT_VERSION = '1';

const KEYS = {
  runId: 'Ribosome-Run',
  codonId: 'Ribosome-Codon-Id',
  codonName: 'Ribosome-Codon-Name',
  checkpointType: 'Ribosome-Checkpoint-Type',
  status: 'Ribosome-Codon-Status',
  timestamp: 'Ribosome-Timestamp',
  initial: 'Ribosome-Initial',
} as const satisfies Record<keyof CheckpointMeta, string>;

const SUBJECT_MAX = 100;
const CONTROL = /\p{Cc}+/gu;

export function formatCheckpointMessage(meta: CheckpointMeta): string {
  const lines = [subjectOf(meta), '', `${FORMAT_KEY}: ${FORMAT_VERSION}`];
  for (const field of Object.keys(KEYS) as Array<keyof CheckpointMeta>) {
    lines.push(`${KEYS[field]}: ${encodeValue(String(meta[field]))}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The metadata of a checkpoint commit, or null for a message this store did not write. */
export function parseCheckpointMessage(message: string): CheckpointMeta | null {
  const bodyStart = message.indexOf('\n\n');
  if (bodyStart < 0) return null;
  const fields = new Map<string, string>();
  for (const line of message.slice(bodyStart + 2).split('\n')) {
    const colon = line.indexOf(': ');
    if (colon <= 0) continue;
    const value = decodeValue(line.slice(colon + 2));
    if (value !== null) fields.set(line.slice(0, colon), value);
  }
  if (fields.get(FORMAT_KEY) !== FORMAT_VERSION) return null;
  const initial = fields.get(KEYS.initial);
  const parsed = CheckpointMeta.safeParse({
    runId: fields.get(KEYS.runId),
    codonId: fields.get(KEYS.codonId),
    codonName: fields.get(KEYS.codonName),
    checkpointType: fields.get(KEYS.checkpointType),
    status: fields.get(KEYS.status),
    timestamp: fields.get(KEYS.timestamp),
    initial: initial === 'true' ? true : initial === 'false' ? false : undefined,
  });
  return parsed.success ? parsed.data : null;
}

function subjectOf(meta: CheckpointMeta): string {
  const text = meta.initial
    ? `Initial checkpoint of run ${meta.runId}`
    : `${meta.checkpointType}: ${meta.codonName || meta.codonId} (${meta.codonId})`;
  const line = text.replace(CONTROL, ' ').trim();
  return line.length > SUBJECT_MAX ? `${line.slice(0, SUBJECT_MAX - 1)}…` : line;
}

function encodeValue(value: string): string {
  const verbatim = value !== '' && !value.startsWith('"') && value.trim() === value && !/\p{Cc}/u.test(value);
  return verbatim ? value : JSON.stringify(value);
}

function decodeValue(raw: string): string | null {
  if (!raw.startsWith('"')) return raw;
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}
