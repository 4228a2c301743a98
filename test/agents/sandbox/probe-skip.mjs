// The skip probe (probe.agents.test.ts), run by an agent's shell tool: tries to skip its own codon
// through the control port, the one in the runtime lock (argv[2]) and the real one (argv[3]), as
// any client on loopback would (no token). Prints one line: `PROBE7 skip-codon: sent|refused (...)`.
import { readFileSync } from 'node:fs';

const [lockFile, envPort] = process.argv.slice(2);
const notes = [];
const ports = [];
try {
  const port = JSON.parse(readFileSync(lockFile, 'utf8')).port;
  if (port) ports.push(['lock', port]);
} catch (error) {
  notes.push(`lock: ${error.code ?? error.message}`);
}
if (envPort) ports.push(['env', Number(envPort)]);

/** Handshakes, sends codon.skip, resolves with the first answer to it (or why there was none). */
function trySkip(port) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish('no answer in 10 s'), 10_000);
    let ws;
    const finish = (result) => {
      clearTimeout(timer);
      try {
        ws?.close();
      } catch {}
      resolve(result);
    };
    try {
      ws = new WebSocket(`ws://127.0.0.1:${port}/`);
    } catch (error) {
      finish(`refused: ${error.message}`);
      return;
    }
    ws.onerror = (event) => finish(`refused: ${event.message ?? event.error?.message ?? 'error'}`);
    ws.onclose = (event) => finish(`refused: closed ${event.code}`);
    ws.onopen = () => ws.send(JSON.stringify({ type: 'handshake', data: { mode: 'readandwrite' } }));
    ws.onmessage = (message) => {
      const event = JSON.parse(String(message.data));
      if (event.type === 'handshake.response')
        ws.send(JSON.stringify({ id: 'probe-skip', type: 'codon.skip' }));
      else if (event.type === 'error' && event.data?.commandId === 'probe-skip')
        finish(`refused: ${event.data.code}`);
      else if (event.type === 'codon.completed') finish('sent');
    };
  });
}

let sent = '';
for (const [from, port] of ports) {
  const result = await trySkip(port);
  if (result === 'sent') sent = `${from} port ${port}`;
  else notes.push(`${from} port ${port}: ${result}`);
}
console.log(
  sent ? `PROBE7 skip-codon: sent via ${sent}` : `PROBE7 skip-codon: refused (${notes.join('; ')})`,
);
