import type { Command } from 'commander';

/** `ribosome tui <ws-url>`: the terminal UI, attached to a server that is already running. */
export function registerTui(program: Command): void {
  program
    .command('tui')
    .description('Attach the terminal UI to a running Ribosome server')
    .argument('<ws-url>', 'the server address printed by `ribosome run`, e.g. ws://127.0.0.1:4711')
    .option('--readonly', 'watch only: handshake as readonly and hide every control')
    .option('--token <token>', "the server's access token (env RIBOSOME_TOKEN)")
    .action(async (url: string, flags: { readonly?: boolean; token?: string }) => {
      if (!/^wss?:\/\//.test(url)) {
        process.stderr.write(`ribosome tui: "${url}" is not a WebSocket address; expected ws://HOST:PORT\n`);
        process.exitCode = 2;
        return;
      }
      const { startTui } = await (await import('../tui/load.ts')).loadTui();
      const token = flags.token ?? (process.env.RIBOSOME_TOKEN || undefined);
      process.exitCode = await startTui({ url, readonly: flags.readonly === true, token });
    });
}
