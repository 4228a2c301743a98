/**
 * `ribosome mock-provider`: serve the scripted provider (Anthropic Messages, OpenAI Responses and
 * Gemini APIs) until SIGTERM/SIGINT.
 */
import type { Command } from 'commander';
import type { RecordedRequest } from '../../llm/mock-provider/server.ts';

type Options = { script: string; port: string; host: string; quiet?: boolean };

export function registerMockProvider(program: Command): void {
  program
    .command('mock-provider')
    .description(
      'Serve scripted Anthropic Messages, OpenAI Responses and Gemini APIs (offline demos and tests)',
    )
    .requiredOption(
      '--script <file>',
      'script of turns to replay (YAML or JSON; see examples/scripts/README.md)',
    )
    .option('--port <n>', 'port to listen on; 0 picks a free one', '0')
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option('--quiet', 'do not log a line per request on stderr')
    .action(async (options: Options) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        program.error(`error: --port must be an integer from 0 to 65535, got "${options.port}"`);
      }
      // Loaded here, not at the top: other subcommands should not pay for the provider's modules.
      const { loadScript } = await import('../../llm/mock-provider/script-loader.ts');
      const { startMockProvider } = await import('../../llm/mock-provider/server.ts');
      const loaded = await loadScript(options.script);
      if (!loaded.ok) program.error(`error: ${loaded.error.message}`, { code: loaded.error.code });
      const provider = await startMockProvider({
        script: loaded.script,
        host: options.host,
        port,
        ...(options.quiet ? {} : { onRequest: logRequest }),
      });
      process.stdout.write(`listening ${provider.url}\n`);

      const shutdown = () => {
        provider.stop().then(() => process.exit(0));
      };
      process.once('SIGTERM', shutdown);
      process.once('SIGINT', shutdown);
    });
}

/** One line per request: what was asked and which turn answered; never the body itself. */
function logRequest(request: RecordedRequest): void {
  const body = typeof request.body === 'object' && request.body !== null ? request.body : {};
  const model = 'model' in body ? ` model=${String(body.model)}` : '';
  const stream = 'stream' in body && body.stream === true ? ' stream' : '';
  const turn =
    request.track === null ? '' : ` track=${request.track} turn=${request.position ?? 'exhausted'}`;
  process.stderr.write(`${request.receivedAt} ${request.method} ${request.url}${model}${stream}${turn}\n`);
}
