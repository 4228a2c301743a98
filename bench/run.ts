/**
 * `npm run bench`: every benchmark, one after the other (they would disturb each other in
 * parallel on two cores). `npm run bench -- fanout proxy` runs only those. Results are printed and
 * written to bench/results/*.json. `npm run bench -- check` runs those with targets and says, one line
 * each, whether they are met (bench/check.ts).
 */
const ALL = [
  'fanout',
  'journal',
  'history',
  'engine',
  'proxy',
  'proxy-memory',
  'proxy-run',
  'checkpoints',
  'checkpoints-large',
  'sentinels',
  'web',
  'attach',
  'sandbox',
  'replay',
  'batch',
] as const;

if (process.argv[2] === 'check') {
  const { run } = (await import('./check.ts')) as { run: (argv: string[]) => Promise<boolean> };
  process.exit((await run(process.argv.slice(3))) ? 0 : 1);
}

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const selected = wanted.length > 0 ? wanted : [...ALL];
for (const name of selected) {
  if (!(ALL as readonly string[]).includes(name)) {
    console.error(`unknown benchmark "${name}"; choose from ${ALL.join(', ')}`);
    process.exit(2);
  }
}
for (const name of selected) {
  console.log(`\n=== ${name} ===`);
  const module = (await import(`./${name}.ts`)) as { run: () => Promise<unknown> };
  await module.run();
}
