/**
 * A stdio MCP server's process as the SDK's client talks to it (its Transport): started, JSON-RPC lines
 * written to its stdin and read from its stdout, its stderr handed on, and ended whole. The SDK's own
 * stdio transport signals the server's pid alone and waits for its pipes: a wrapper (`sh -c`, npx) that
 * forks the real server is killed, its child is left running and holds the pipes, and the client waits
 * for that child to exit however long it runs. Here closing ends the whole process tree, found before
 * the first signal (a child may sit in a session of its own, `setsid`), and the pipes are waited on for
 * a bound only: a process that left the tree (a double fork) no longer keeps the client waiting.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { descendants, isAlive, killTree } from '../../platform/processes/process-tree.ts';

export type StdioServer = {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** Each piece of the server's stderr, as it comes. */
  onStderr(text: string): void;
};

/** How long a server that answered is given to exit by itself once its stdin is closed, before signals. */
const EXIT_GRACE_MS = 1000;
/** Between SIGTERM and SIGKILL to what is left of the tree. */
const TREE_GRACE_MS = 1000;
/** How long the pipes are waited on once the tree is gone, before they are let go. */
const PIPES_WAIT_MS = 500;

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #server: StdioServer;
  readonly #buffer = new ReadBuffer();
  #child: ChildProcessWithoutNullStreams | undefined;
  /** The child exited and every pipe of it closed. */
  #closed = false;
  #answered = false;
  #closing: Promise<void> | undefined;

  constructor(server: StdioServer) {
    this.#server = server;
  }

  /** The server's pid once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /**
   * The server answered (it started and listed its tools): closing then gives it a moment to exit by
   * itself on the end of its stdin, as the MCP spec asks. One that never answered is signalled at once.
   */
  answered(): void {
    this.#answered = true;
  }

  start(): Promise<void> {
    if (this.#child) return Promise.reject(new Error('The MCP server was already started'));
    return new Promise((resolve, reject) => {
      const child = spawn(this.#server.command, [...this.#server.args], {
        cwd: this.#server.cwd,
        // As the SDK's transport: HOME, PATH and the like from here, then the server's own.
        env: { ...getDefaultEnvironment(), ...this.#server.env },
        stdio: 'pipe',
      });
      this.#child = child;
      child.once('spawn', () => resolve());
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('close', () => {
        this.#closed = true;
        this.onclose?.();
      });
      child.stdin.on('error', (error) => this.onerror?.(error));
      child.stdout.on('error', (error) => this.onerror?.(error));
      child.stdout.on('data', (chunk: Buffer) => this.#received(chunk));
      child.stderr.on('data', (chunk: Buffer) => this.#server.onStderr(chunk.toString()));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#closing || !stdin.writable) return Promise.reject(new Error('Not connected'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends the server's whole process tree; at most the graces long. Never rejects. */
  close(): Promise<void> {
    this.#closing ??= this.#end();
    return this.#closing;
  }

  #received(chunk: Buffer): void {
    try {
      this.#buffer.append(chunk);
    } catch (error) {
      // More than the buffer holds without a line's end: nothing more can be read from it.
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error); // A line that is no JSON-RPC message; the next one is read.
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  async #end(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    const exited = child.exitCode !== null || child.signalCode !== null;
    // Found before anything is sent: a process whose parent exits leaves the tree. Once the server has
    // exited its pid may be another process's, and what it left is out of reach.
    const tree = exited || child.pid === undefined ? [] : [child.pid, ...descendants(child.pid)];
    child.stdin.end();
    if (this.#answered) await until(() => !tree.some(isAlive), EXIT_GRACE_MS);
    await Promise.all(tree.filter(isAlive).map((pid) => killTree(pid, TREE_GRACE_MS)));
    if (!this.#closed) {
      await until(() => this.#closed, PIPES_WAIT_MS);
      // Still open: a process that left the tree holds them. Let go, so that nothing waits on it.
      if (!this.#closed) for (const pipe of [child.stdin, child.stdout, child.stderr]) pipe.destroy();
    }
    this.#buffer.clear();
  }
}

/** Resolves once `done()` holds or `ms` have passed, looking every 25 ms. */
async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
}
