import { stringify } from 'yaml';
import {
  type CommandType,
  describeDelivery,
  type EventType,
  EXTENSION_MARK,
  EXTENSION_VALUES_MARK,
  eventCategory,
  eventDelivery,
  isStateModifying,
} from '../../core/protocol/index.ts';
import { SERVER_VERSION } from '../../core/version.ts';
import { type JsonSchema, type MessageSchema, protocolSchemas, schemaPath } from './protocol-schemas.ts';

/**
 * The AsyncAPI 3.0 document of Interface A, built from the same JSON Schemas as schema/commands and
 * schema/events: one WebSocket channel, one `receive` operation per command (the handshake first, with
 * its replies) and one `send` operation per event. What is ours beside the spec carries
 * `x-ribosome-extension: true` (messages, fields, error codes) or `x-ribosome-extension-values`.
 */

const CHANNEL = 'control';

/** Events a command is answered with (spec 6.7); an `error` event may answer any of them. */
const answers: Record<CommandType | 'handshake', EventType[]> = {
  handshake: ['handshake.response', 'server.ready'],
  'codon.start': ['codon.started'],
  'codon.next': ['codon.started'],
  'codon.skip': ['codon.completed'],
  'codon.redo': ['codon.started'],
  'codon.forceStop': ['codon.completed'],
  'codon.message': ['codon.message'],
  'review.comment': ['review.comment'],
  'review.submit': ['review.sent'],
  'checkpoint.list': ['checkpoint.list'],
  'checkpoint.diff': ['checkpoint.diff'],
  'rollback.toCheckpoint': ['rollback.started', 'rollback.completed'],
  'rollback.toCodon': ['rollback.started', 'rollback.completed'],
  'rollback.toLastSuccess': ['rollback.started', 'rollback.completed'],
  'server.shutdown': [],
  'dashboard.ticket': ['dashboard.ticket'],
  'approval.approve': ['approval.ended'],
  ping: ['pong'],
  'ping.broadcast': ['pong'],
  'history.sync': ['history.batch'],
};

const CATEGORY_TEXT = {
  'server-state': 'Server State event',
  'agentic-backbone': 'Agentic Backbone event',
  sentinel: 'Sentinel event',
  connection: 'Connection State event',
} as const;

const DESCRIPTION = `Interface A of the Execution Control Protocol, as Ribosome serves it: clients observe and
control the execution of a plan of codons over one WebSocket connection.

A client connects to ws://HOST:PORT and sends a \`handshake\` first (its \`id\` may be omitted); the
server answers \`handshake.response\`, then \`server.ready\`, to that client only. Any other command
before it is refused with HANDSHAKE_REQUIRED. Readonly clients may send only checkpoint.list,
checkpoint.diff and dashboard.ticket (ours), history.sync, ping, ping.broadcast and server.shutdown
(not with a readonly dashboard ticket); any other command from them gets
INSUFFICIENT_PERMISSIONS, whatever its payload. Every other command needs an \`id\` (1 to 256
characters); an error that answers a command carries it in \`data.commandId\`. Most events are
journaled first, then sent to every handshaken client; each message's summary says how it travels:
Connection State events, \`checkpoint.list\`, \`checkpoint.diff\` and an \`error\` answering a command go only to the
client that asked and are never journaled; the \`pong\` answering ping.broadcast and the fatal
STORAGE_FAILED \`error\` go to every client without being journaled.

What Ribosome adds to the spec (docs/protocol.md#protocol-extensions) is marked \`${EXTENSION_MARK}: true\`
(a message, a field or an error code) or \`${EXTENSION_VALUES_MARK}\` (values of ours in a spec field).
Beside the messages: WebSocket close codes 1001 (server shutting down), 1008 (a client too slow to
read), 1009 (a frame over the hard limit) and 4408 (no handshake within the handshake timeout, ours);
an upgrade past the client limit gets HTTP 503 \`{"error": "too_many_clients", "message", "maxClients"}\`
(ours); a plain HTTP request gets 400 with a JSON body.

Generated from the zod schemas in src/core/protocol/ by \`npm run schema\`; do not edit by hand.`;

export function asyncApiDocument(): JsonSchema {
  const schemas: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messageRef = (key: string) => ({ $ref: `#/channels/${CHANNEL}/messages/${key}` });

  for (const message of protocolSchemas()) {
    const key = `${message.kind}.${message.type}`;
    messages[key] = toMessage(message, schemas);
  }
  for (const message of protocolSchemas()) {
    const key = `${message.kind}.${message.type}`;
    if (message.kind === 'command') {
      const type = message.type as CommandType | 'handshake';
      const replies = [...answers[type], ...(type === 'handshake' ? [] : ['error'])];
      operations[`receive.${message.type}`] = {
        action: 'receive',
        channel: { $ref: `#/channels/${CHANNEL}` },
        summary: `A client sends ${message.type}.`,
        messages: [messageRef(key)],
        ...(replies.length === 0
          ? {}
          : {
              reply: {
                channel: { $ref: `#/channels/${CHANNEL}` },
                messages: replies.map((t) => messageRef(`event.${t}`)),
              },
            }),
      };
    } else {
      const ways = eventDelivery[message.type as EventType];
      const everyone = ways.some((w) => w.to === 'everyone');
      const asker = ways.some((w) => w.to === 'asker');
      operations[`send.${message.type}`] = {
        action: 'send',
        channel: { $ref: `#/channels/${CHANNEL}` },
        summary: everyone
          ? `The server sends ${message.type} to every handshaken client${asker ? ', or to one client' : ''}.`
          : `The server sends ${message.type} to one client.`,
        messages: [messageRef(key)],
      };
    }
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Ribosome Execution Control Protocol (Interface A)',
      version: SERVER_VERSION,
      description: DESCRIPTION,
      license: { name: 'MIT' },
    },
    defaultContentType: 'application/json',
    servers: {
      local: {
        host: '127.0.0.1:{port}',
        protocol: 'ws',
        description:
          'A `ribosome run` server; it listens on 127.0.0.1 by default, on the port --port gives (else one the system picks, printed in its `listening` line).',
        variables: { port: { description: 'The port the server printed.', default: '7700' } },
      },
    },
    channels: {
      [CHANNEL]: {
        address: '/',
        title: 'The control connection',
        description: 'Commands in, events out, as JSON text frames.',
        messages: Object.fromEntries(
          Object.keys(messages).map((key) => [key, { $ref: `#/components/messages/${key}` }]),
        ),
      },
    },
    operations,
    components: { messages, schemas },
  };
}

function toMessage(message: MessageSchema, schemas: Record<string, unknown>): JsonSchema {
  const { $schema: _, definitions, title: __, ...payload } = message.schema;
  // Shared definitions (ErrorCode, FileNode) move to components.schemas, their references with them.
  for (const [name, definition] of Object.entries((definitions ?? {}) as Record<string, unknown>)) {
    schemas[name] = rewriteRefs(definition);
  }
  const data = (payload.properties as Record<string, JsonSchema> | undefined)?.data;
  const extension = data?.[EXTENSION_MARK] === true;
  const command = message.kind === 'command';
  const description = command
    ? message.type === 'handshake'
      ? 'Must be the first message of a connection; fixes its mode.'
      : isStateModifying(message.type as CommandType)
        ? 'Needs a readandwrite client.'
        : 'Allowed to readonly clients.'
    : `${CATEGORY_TEXT[eventCategory[message.type as EventType]]}; ${describeDelivery(message.type as EventType)}.`;
  return {
    name: message.type,
    title: `${message.type} (${message.kind})`,
    summary: description,
    description: `JSON Schema: schema/${schemaPath(message)}.`,
    ...(command
      ? { correlationId: { location: '$message.payload#/id' } }
      : message.type === 'error'
        ? { correlationId: { location: '$message.payload#/data/commandId' } }
        : {}),
    payload: rewriteRefs(payload),
    ...(extension ? { [EXTENSION_MARK]: true } : {}),
  };
}

function rewriteRefs(value: unknown): JsonSchema {
  return JSON.parse(
    JSON.stringify(value).replaceAll('"#/definitions/', '"#/components/schemas/'),
  ) as JsonSchema;
}

export function asyncApiYaml(): string {
  return `# Generated by \`npm run schema\` from src/core/protocol/; do not edit by hand.\n${stringify(asyncApiDocument(), { lineWidth: 0, aliasDuplicateObjects: false })}`;
}
