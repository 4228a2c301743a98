/**
 * `npm run bench`: every benchmark, one after the other (they would disturb each other in
 * parallel on two cores). `npm run bench -- fanout proxy` runs only those. Results are printed and
 * written to bench/results/*.json.
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
] as const;

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
