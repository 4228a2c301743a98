/**
 * Benchmark child: a stand-in for the `claude` CLI (RIBOSOME_CLAUDE_BIN) that writes stream-json
 * `assistant` lines at a steady rate, each text naming its sequence number and the wall-clock time
 * it was written (`live <seq> <epoch ms>`), so a client can tell how late it shows each one.
 * Rate and duration come from ATTACH_AGENT_RATE (lines/s) and ATTACH_AGENT_MS.
 */
const rate = Number(process.env.ATTACH_AGENT_RATE ?? 5_000);
const durationMs = Number(process.env.ATTACH_AGENT_MS ?? 10_000);
const now = () => performance.timeOrigin + performance.now();
const out = process.stdout;
const session = 'bench-session';

const line = (seq: number) =>
  `${JSON.stringify({
    type: 'assistant',
    session_id: session,
    message: {
      id: `msg-${seq}`,
      model: 'bench',
      content: [{ type: 'text', text: `live ${seq} ${now().toFixed(3)}` }],
    },
  })}\n`;

out.write(`${JSON.stringify({ type: 'system', subtype: 'init', session_id: session, model: 'bench' })}\n`);
const start = now();
let seq = 0;
// Every millisecond tick writes the lines that are due: a steady rate, not bursts of a second.
await new Promise<void>((resolve) => {
  const tick = () => {
    const due = Math.min(Math.floor(((now() - start) * rate) / 1000), Math.floor((durationMs * rate) / 1000));
    let chunk = '';
    while (seq < due) chunk += line(seq++);
    if (chunk) out.write(chunk);
    if (now() - start >= durationMs) return resolve();
    setTimeout(tick, 1);
  };
  tick();
});
out.write(
  `${JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'done', session_id: session, total_cost_usd: 0, duration_ms: Math.round(now() - start) })}\n`,
);
