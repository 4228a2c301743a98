/**
 * The protocol fuzzer's frames, built from the command schemas themselves (src/core/protocol): for every
 * command, its fields with wrong types, sizes and nesting, missing, or holding ids that name
 * prototype properties; ids and types of every wrong kind; bare JSON of every shape; bad bytes.
 * Pure: the same random source gives the same frames. What a frame must get back is decided by the
 * server's own pure parser (parseFrame): a frame it refuses must be answered with an error.
 */
import { commandSchemas } from '../../../src/core/protocol/index.ts';
import { pick } from './scenario.ts';

export type FuzzFrame = {
  /** What was done to the frame, for reports. */
  label: string;
  text?: string;
  bytes?: Buffer;
  binary?: boolean;
  /** The id the frame carries, when it is a usable one (the error must name it). */
  id?: string;
  /** A valid command whose ids name nothing real (prototype keys, huge): it must be refused too. */
  hostile?: boolean;
};

type Field = {
  name: string;
  kind: 'string' | 'boolean' | 'enum' | 'other';
  required: boolean;
  values?: string[];
  /** A value the field's schema accepts, as JSON text; absent for an optional field with none found. */
  valid?: string;
  schema: Schema;
};
type Def = {
  type: string;
  innerType?: unknown;
  entries?: Record<string, string>;
  shape?: Record<string, unknown>;
  element?: unknown;
};
type Schema = { safeParse(value: unknown): { success: boolean } };

const defOf = (schema: unknown) => (schema as { _zod: { def: Def } })._zod.def;

/** Values to try for a field, ids that name nothing first (the server answers them with an error). */
function candidates(name: string, schema: unknown): unknown[] {
  const def = defOf(schema);
  if (def.innerType) return candidates(name, def.innerType);
  if (def.type === 'boolean') return [false];
  if (def.type === 'enum') return Object.values(def.entries ?? {}).slice(0, 1);
  if (def.type === 'number') return [1];
  if (def.type === 'array') return candidates(name, def.element).map((v) => [v]);
  if (def.type === 'object') {
    const entries = Object.entries(def.shape ?? {}).map(([key, inner]) => [key, candidates(key, inner)[0]]);
    return [Object.fromEntries(entries)];
  }
  if (name === 'codonId') return ['no-such-codon'];
  if (name === 'runId') return ['no-such-run'];
  return ['chaos', 'abcdef12'];
}

/** A value the field's own schema accepts, as JSON text. */
function validValue(name: string, schema: unknown): string | undefined {
  const accepted = candidates(name, schema).find((v) => (schema as Schema).safeParse(v).success);
  return accepted === undefined ? undefined : JSON.stringify(accepted);
}

/** The `data` fields of a command, read from its zod schema (wrappers unwrapped). */
export function fieldsOf(type: keyof typeof commandSchemas): Field[] {
  let data: unknown = (commandSchemas[type] as unknown as { shape: { data: unknown } }).shape.data;
  while (defOf(data).innerType) data = defOf(data).innerType;
  const shape = (data as { shape?: Record<string, unknown> }).shape ?? {};
  return Object.entries(shape).map(([name, schema]) => {
    let s = schema;
    let required = true;
    while (defOf(s).innerType) {
      required = false;
      s = defOf(s).innerType;
    }
    const def = defOf(s);
    const valid = validValue(name, schema);
    if (required && valid === undefined)
      throw new Error(`the fuzzer has no valid value for ${type}'s ${name}`);
    const kind = def.type === 'enum' || def.type === 'boolean' || def.type === 'string' ? def.type : 'other';
    const values = def.type === 'enum' ? { values: Object.values(def.entries ?? {}) } : {};
    return { name, kind, required, valid, schema: schema as Schema, ...values } satisfies Field;
  });
}

/** The fields' valid values (an optional field none was found for is left out). */
const validData = (fields: Field[]) =>
  new Map(fields.flatMap((f) => (f.valid === undefined ? [] : [[f.name, f.valid] as [string, string]])));

/** Names an object lookup may find on a prototype instead of the data. */
export const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  '__defineGetter__',
  'isPrototypeOf',
];

const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const made = new Map<string, string>();
const wrongForField = new Map<Schema, Array<[string, () => string]>>();

/** Whether the field's schema takes the value after all (an empty note, a number of context lines). */
function takes(field: Field, label: string, make: () => string): boolean {
  const text = made.get(label) ?? make();
  made.set(label, text);
  try {
    return field.schema.safeParse(JSON.parse(text)).success;
  } catch {
    return false;
  }
}

/**
 * Values of every wrong kind for a field (or for `data`), as JSON text (nesting and size built as text);
 * for a field, only those its schema refuses.
 */
function wrongValues(field: Field | undefined): Array<[string, () => string]> {
  if (!field) return everyWrongValue(undefined);
  let choices = wrongForField.get(field.schema);
  if (!choices) {
    choices = everyWrongValue(field).filter(([label, make]) => !takes(field, label, make));
    wrongForField.set(field.schema, choices);
  }
  return choices;
}

function everyWrongValue(field: Field | undefined): Array<[string, () => string]> {
  const choices: Array<[string, () => string]> = [
    ['number', () => '42'],
    ['negative number', () => '-1'],
    ['huge number', () => '1e308'],
    ['null', () => 'null'],
    ['empty array', () => '[]'],
    ['empty object', () => '{}'],
    ['array of strings', () => '["one","two"]'],
    ['object with a prototype key', () => '{"__proto__":{"polluted":true}}'],
    ['nested arrays ×1000', () => deepArray(1000)],
    ['nested arrays ×100000', () => deepArray(100_000)],
    ['nested objects ×1000', () => deepObject(1000)],
    ['nested objects ×50000', () => deepObject(50_000)],
    ['object of 20000 keys', () => `{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`],
    ['array of 100000 numbers', () => `[${Array.from({ length: 100_000 }, (_, i) => i).join(',')}]`],
    ['empty string', () => '""'],
  ];
  if (field?.kind !== 'string') choices.push(['string', () => '"one"']);
  if (field?.kind !== 'boolean') choices.push(['boolean', () => 'true']);
  if (field?.kind === 'enum')
    choices.push(['value outside the enum', () => '"START"'], ['enum value with spaces', () => '" start "']);
  return choices;
}

function wrongValue(random: () => number, field: Field | undefined): { label: string; json: string } {
  const [label, make] = pick(random, wrongValues(field));
  return { label, json: make() };
}

/** Strings a schema accepts that no real id equals: huge, odd bytes, prototype keys. */
function hostileString(random: () => number): { label: string; json: string } {
  const choices: Array<[string, () => string]> = [
    ['a prototype key', () => JSON.stringify(pick(random, PROTOTYPE_KEYS))],
    ['a string of 1 MiB', () => JSON.stringify('x'.repeat(1024 * 1024))],
    ['a string of 100 KiB of quotes', () => JSON.stringify('"'.repeat(100 * 1024))],
    ['NUL and control characters', () => JSON.stringify('a\u0000b\u0001c\u001f\u007f')],
    ['lone surrogates', () => '"\\ud800\\udfff\\ud800"'],
    ['right-to-left and zero-width', () => JSON.stringify('\u202eone\u200b\ufeff')],
    ['a path', () => JSON.stringify('../../etc/passwd')],
    ['a template', () => JSON.stringify('{{codon.prompt}}$' + '{process.exit()}')],
  ];
  const [label, make] = pick(random, choices);
  return { label, json: make() };
}

const COMMANDS = Object.keys(commandSchemas) as Array<keyof typeof commandSchemas>;

/** One command frame with one thing wrong (or, for hostile ids, nothing wrong but the id). */
export function commandFrame(random: () => number, n: number): FuzzFrame {
  const type = pick(random, COMMANDS);
  const fields = fieldsOf(type);
  const id = `fz-${n}`;
  const data = validData(fields);
  let idJson: string | undefined = JSON.stringify(id);
  let typeJson = JSON.stringify(type);
  let dataJson: string | undefined;
  let label: string;
  let hostile = false;
  let wrongData = false;
  const r = random();
  const field = fields.length > 0 ? pick(random, fields) : undefined;
  if (field && r < 0.35) {
    const wrong = wrongValue(random, field);
    data.set(field.name, wrong.json);
    label = `${type}: ${field.name} = ${wrong.label}`;
  } else if (field && r < 0.45) {
    if (!field.required) return commandFrame(random, n);
    data.delete(field.name);
    label = `${type}: ${field.name} missing`;
  } else if (field && field.kind === 'string' && r < 0.6) {
    const value = hostileString(random);
    data.set(field.name, value.json);
    label = `${type}: ${field.name} = ${value.label}`;
    // An id that names nothing must be refused; other text (a reason) may be taken as it is.
    hostile = /Id$/.test(field.name);
  } else if (r < 0.72) {
    const wrong = wrongValue(random, undefined);
    dataJson = wrong.json;
    wrongData = true;
    label = `${type}: data = ${wrong.label}`;
  } else if (r < 0.84) {
    const choices = ['42', 'null', '""', '[]', '{}', 'true', JSON.stringify('x'.repeat(200_000)), undefined];
    const choice = pick(random, choices);
    idJson = choice;
    label = `${type}: id = ${choice === undefined ? 'missing' : choice.length > 20 ? 'a string of 200000' : choice}`;
  } else {
    const choices = [
      '42',
      'null',
      '[]',
      '{}',
      '""',
      JSON.stringify(type.toUpperCase()),
      JSON.stringify(`${type} `),
      JSON.stringify(pick(random, PROTOTYPE_KEYS)),
      JSON.stringify('x'.repeat(1024 * 1024)),
      JSON.stringify(`codon.${pick(random, PROTOTYPE_KEYS)}`),
    ];
    typeJson = pick(random, choices);
    label = `type = ${typeJson.length > 40 ? 'a string of 1 MiB' : typeJson}`;
  }
  dataJson ??= `{${[...data].map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
  const parts = [
    ...(idJson === undefined ? [] : [`"id":${idJson}`]),
    `"type":${typeJson}`,
    ...(fields.length > 0 || wrongData ? [`"data":${dataJson}`] : []),
  ];
  return { label, text: `{${parts.join(',')}}`, id: idJson === JSON.stringify(id) ? id : undefined, hostile };
}

/** Frames that are not a command at all: bad JSON, other JSON shapes, binary, bad UTF-8. */
export function shapeFrame(random: () => number): FuzzFrame {
  const choices: Array<() => FuzzFrame> = [
    () => ({ label: 'not JSON', text: 'hello' }),
    () => ({ label: 'truncated JSON', text: '{"id":"x","type":"ping"' }),
    () => ({ label: 'empty frame', text: '' }),
    () => ({ label: 'JSON number', text: '1' }),
    () => ({ label: 'JSON null', text: 'null' }),
    () => ({ label: 'JSON string', text: '"ping"' }),
    () => ({ label: 'JSON array of commands', text: '[{"id":"x","type":"ping"}]' }),
    () => ({ label: 'byte order mark', text: '\ufeff{"id":"x","type":"ping"}' }),
    () => ({ label: 'nested arrays ×200000', text: deepArray(200_000) }),
    () => ({
      label: 'command inside nested objects ×10000',
      text: `${'{"data":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
    }),
    () => ({
      label: 'binary frame of a valid ping',
      bytes: Buffer.from('{"id":"x","type":"ping"}'),
      binary: true,
    }),
    () => ({ label: 'invalid UTF-8', bytes: Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0xff, 0xfe, 0x22, 0x7d]) }),
    () => ({
      label: 'random bytes',
      bytes: Buffer.from(Array.from({ length: 64 }, () => Math.floor(random() * 256))),
    }),
    () => ({ label: 'handshake again', text: '{"type":"handshake","data":{"mode":"readandwrite"}}' }),
    () => ({
      label: 'handshake with a bad mode',
      text: '{"id":"h","type":"handshake","data":{"mode":"admin"}}',
    }),
    () => ({ label: 'handshake with nested data', text: `{"type":"handshake","data":${deepObject(5000)}}` }),
    () => ({ label: 'duplicate keys', text: '{"id":"x","type":"ping","type":"codon.nope"}' }),
    () => ({
      label: 'prototype pollution',
      text: '{"id":"x","type":"ping","__proto__":{"type":"server.shutdown"},"constructor":{"prototype":{"x":1}}}',
    }),
  ];
  return pick(random, choices)();
}

/** The next frame: mostly commands with one thing wrong, sometimes not a command at all. */
export function fuzzFrame(random: () => number, n: number): FuzzFrame {
  return random() < 0.75 ? commandFrame(random, n) : shapeFrame(random);
}

/** A command frame from parts given as JSON text (undefined leaves the part out). */
function assemble(id: string | undefined, type: string, data: string | undefined): string {
  return `{${[...(id === undefined ? [] : [`"id":${id}`]), `"type":${type}`, ...(data === undefined ? [] : [`"data":${data}`])].join(',')}}`;
}

/**
 * The same for every command, in order: each field with every wrong kind of value, or missing; each
 * id field naming a prototype property; data, id and type of wrong kinds. Deterministic, so even the
 * short run covers every command and field.
 */
export function systematicFrames(): FuzzFrame[] {
  const frames: FuzzFrame[] = [];
  let n = 0;
  for (const type of COMMANDS) {
    const fields = fieldsOf(type);
    const base = validData(fields);
    const dataOf = (m: Map<string, string>) =>
      `{${[...m].map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
    const add = (label: string, data: string | undefined, extra: Partial<FuzzFrame> = {}) => {
      const id = `sys-${n++}`;
      frames.push({ label, text: assemble(JSON.stringify(id), JSON.stringify(type), data), id, ...extra });
    };
    for (const field of fields) {
      for (const [label, make] of wrongValues(field))
        add(`${type}: ${field.name} = ${label}`, dataOf(new Map(base).set(field.name, make())));
      if (field.required) {
        const without = new Map(base);
        without.delete(field.name);
        add(`${type}: ${field.name} missing`, dataOf(without));
      }
      if (field.kind === 'string' && /Id$/.test(field.name) && type !== 'server.shutdown') {
        for (const key of PROTOTYPE_KEYS)
          add(
            `${type}: ${field.name} = "${key}"`,
            dataOf(new Map(base).set(field.name, JSON.stringify(key))),
            {
              hostile: true,
            },
          );
      }
    }
    for (const wrong of ['42', 'null', '"data"', '[]', 'true']) add(`${type}: data = ${wrong}`, wrong);
    for (const id of ['42', 'null', '""', '[]', '{}', undefined])
      frames.push({
        label: `${type}: id = ${id ?? 'missing'}`,
        text: assemble(id, JSON.stringify(type), fields.length ? dataOf(base) : undefined),
      });
    for (const wrongType of [JSON.stringify(type.toUpperCase()), JSON.stringify(`${type}.`), '42', 'null'])
      frames.push({
        label: `type = ${wrongType}`,
        text: assemble(JSON.stringify(`sys-${n}`), wrongType, undefined),
        id: `sys-${n++}`,
      });
  }
  for (const key of PROTOTYPE_KEYS)
    frames.push({
      label: `type = "${key}"`,
      text: assemble(JSON.stringify(`sys-${n}`), JSON.stringify(key), undefined),
      id: `sys-${n++}`,
    });
  return frames;
}
