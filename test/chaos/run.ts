/**
 * The fault campaign: `npm run chaos [-- --minutes M --seed S --only NAME[,NAME] --short --verbose]`.
 * Runs each scenario (test/chaos/scenarios.ts) in turn for its share of the minutes (the short
 * versions with --short, as `npm test` runs them), then prints one table of figures: kills, events
 * checked and lost, frames fuzzed, crashes, faults injected and how each ended, peak server RSS.
 * Exits 1 when any scenario found a problem (each is printed in full), 0 otherwise.
 */
import { parseArgs } from 'node:util';
import { runScenario, type ScenarioResult } from './lib/scenario.ts';
import { SCENARIOS } from './scenarios.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    seed: { type: 'string' },
    only: { type: 'string' },
    short: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});

const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 0x7fffffff);
const only = values.only?.split(',').filter(Boolean);
const unknown = only?.filter((name) => !SCENARIOS.some((s) => s.name === name)) ?? [];
if (unknown.length > 0) {
  process.stderr.write(
    `chaos: no scenario ${unknown.join(', ')}; there are: ${SCENARIOS.map((s) => s.name).join(', ')}\n`,
  );
  process.exit(2);
}
const chosen = SCENARIOS.filter((s) => !only || only.includes(s.name));
const minutes = Number(values.minutes);
const share = minutes / chosen.length;

process.stdout.write(
  `chaos: seed ${seed}, ${chosen.length} scenario(s), ${values.short ? 'short versions' : `${minutes} min (${share.toFixed(1)} each)`}\n` +
    `replay: npm run chaos -- --seed ${seed}${only ? ` --only ${only.join(',')}` : ''}${values.short ? ' --short' : ''}\n`,
);
const results: ScenarioResult[] = [];
const started = Date.now();
for (const [i, scenario] of chosen.entries()) {
  process.stdout.write(`\n== ${scenario.name}: ${scenario.summary}\n`);
  const result = await runScenario(scenario, {
    seed: (seed + i) | 0,
    short: values.short,
    minutes: share,
    log: (line) => {
      if (values.verbose)
        process.stdout.write(`  ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s ${line}\n`);
    },
  });
  results.push(result);
  const verdict = result.skipped
    ? `skipped: ${result.skipped}`
    : result.tally.failures.length === 0
      ? 'ok'
      : `${result.tally.failures.length} problem(s)`;
  process.stdout.write(`   ${verdict} (${result.seconds.toFixed(1)} s)\n`);
  for (const [failure, count] of grouped(result.tally.failures))
    process.stdout.write(`   ✗ ${count > 1 ? `(${count}×) ` : ''}${failure.replaceAll('\n', '\n     ')}\n`);
}
process.stdout.write(`\n${table(results)}\n`);
process.exit(results.some((r) => r.tally.failures.length > 0) ? 1 : 0);

/** Failures of the same kind (numbers, ids and times blurred) once each, with their count. */
function grouped(failures: readonly string[]): Map<string, number> {
  const kinds = new Map<string, { first: string; count: number }>();
  for (const f of failures) {
    const line = f.split('\n')[0] ?? '';
    const kind = line.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, 'ID').replace(/\d+/g, 'N');
    const k = kinds.get(kind);
    if (k) k.count += 1;
    else kinds.set(kind, { first: f, count: 1 });
  }
  return new Map([...kinds.values()].map((k) => [k.first, k.count]));
}

function table(rows: ScenarioResult[]): string {
  const header = [
    'scenario',
    'result',
    'kills',
    'events checked/lost',
    'frames fuzzed',
    'crashes',
    'faults',
    'peak RSS MiB',
    'how the faults ended',
  ];
  const body = rows.map((r) => {
    const t = r.tally;
    return [
      r.name,
      r.skipped ? 'skipped' : t.failures.length === 0 ? 'ok' : `FAIL ${t.failures.length}`,
      String(t.kills),
      `${t.eventsChecked}/${t.eventsLost}`,
      String(t.framesFuzzed),
      String(t.crashes),
      String(t.faults),
      t.peakRssKiB ? (t.peakRssKiB / 1024).toFixed(0) : '-',
      r.skipped ??
        ([...t.outcomes]
          .sort((a, b) => b[1] - a[1])
          .map(([k, n]) => `${n}× ${k}`)
          .join('; ') ||
          '-'),
    ];
  });
  const sum = (f: (r: ScenarioResult) => number) => rows.reduce((n, r) => n + f(r), 0);
  body.push([
    'total',
    rows.some((r) => r.tally.failures.length > 0) ? 'FAIL' : 'ok',
    String(sum((r) => r.tally.kills)),
    `${sum((r) => r.tally.eventsChecked)}/${sum((r) => r.tally.eventsLost)}`,
    String(sum((r) => r.tally.framesFuzzed)),
    String(sum((r) => r.tally.crashes)),
    String(sum((r) => r.tally.faults)),
    (Math.max(0, ...rows.map((r) => r.tally.peakRssKiB)) / 1024).toFixed(0),
    `${rows.reduce((n, r) => n + r.seconds, 0).toFixed(0)} s`,
  ]);
  const widths = header.map((h, i) =>
    Math.max(
      h.length,
      ...body.slice(0, -1).map((row) => (i < 8 ? row[i]!.length : 0)),
      body.at(-1)![i]!.length,
    ),
  );
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join(' | ');
  return [
    line(header),
    widths.map((w, i) => (i === widths.length - 1 ? '-'.repeat(20) : '-'.repeat(w))).join('-|-'),
    ...body.map(line),
  ].join('\n');
}
