/**
 * `npm run bench`: every benchmark module in this folder, run one after another (the machine has two
 * cores; running them side by side would measure contention), merged into one JSON object. Each
 * figure comes with a naive baseline measured in the same run, so the ratios hold on a noisy machine.
 * `npm run bench -- redaction startup` runs only the named ones.
 */
const ALL = ['redaction', 'startup', 'warehouse-upserts', 'token-cache', 'mtls-handshakes', 'paging'];

const chosen = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = chosen.length ? chosen : ALL;
const figures: Record<string, number | string> = {};
for (const name of names) {
  const started = performance.now();
  try {
    const module = (await import(`./${name}.ts`)) as { run(): Promise<Record<string, number>> };
    Object.assign(figures, await module.run());
  } catch (error) {
    figures[`${name}_error`] = error instanceof Error ? error.message : String(error);
  }
  process.stderr.write(`bench ${name}: ${Math.round(performance.now() - started)} ms\n`);
}
console.log(JSON.stringify(figures, null, 2));
if (Object.keys(figures).some((k) => k.endsWith('_error'))) process.exitCode = 1;
