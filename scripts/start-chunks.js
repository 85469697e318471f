// Which of our modules share a file in dist/bundle/ (scripts/bundle.js, rolldown's codeSplitting).
//
// Why it matters: on Node 20 a module costs far more than its bytes. Each file is resolved,
// read, looked up for its package.json and linked, and each import between files resolved again;
// past a few dozen such steps V8 optimizes Node's own path functions, which pages TurboFan into the
// process. esbuild, which bundled us before, split by who imports what: `debug` loaded 31 files and
// the same code as 3 files runs in 0.95x the time and 4-5 MiB less (docs/benchmarks.md, seventh
// pass). So two groups are named here, and everything else is split as the bundler splits it:
//
// - `cli`: what `connector-auth --help` loads (cli/main.ts and its static imports). No zod, no HTTP
//   client: the CLI's start stays what it was.
// - `run`: what a connector run loads: the package's entry (every connector imports it) and the
//   `debug` command (an author's edit-run cycle), with all they import statically, less `cli`.
//   The other commands, each source and auth method (and the packages they load), and the clients
//   reach it through their own chunks.
import { join } from 'node:path';

/** Static imports from `roots`, through every module the bundle holds. */
function staticClosure(context, roots) {
  const seen = new Set();
  const queue = [...roots];
  while (queue.length > 0) {
    const id = queue.pop();
    if (seen.has(id)) continue;
    seen.add(id);
    queue.push(...(context.getModuleInfo(id)?.importedIds ?? []));
  }
  return seen;
}

/**
 * A rolldown plugin that finds the groups' modules once the module graph is known, and the
 * `codeSplitting` option that uses them (read by rolldown when it makes the chunks, after that).
 */
export function startChunks(root) {
  const src = join(root, 'src');
  const own = (ids) => new Set([...ids].filter((id) => id.startsWith(src)));
  let cli = new Set();
  let run = new Set();
  const plugin = {
    name: 'start-chunks',
    buildEnd(error) {
      if (error) return;
      cli = own(staticClosure(this, [join(src, 'cli', 'main.ts')]));
      const runRoots = [join(src, 'index.ts'), join(src, 'cli', 'commands', 'project', 'debug.ts')];
      run = own([...staticClosure(this, runRoots)].filter((id) => !cli.has(id)));
      // The entry's own module stays in its entry file.
      cli.delete(join(src, 'cli', 'main.ts'));
      run.delete(join(src, 'index.ts'));
      if (run.size < 50)
        throw new Error(`the run chunk found only ${run.size} modules: update scripts/start-chunks.js`);
    },
  };
  const codeSplitting = {
    // `cli` first: a module both groups reach stays where `--help` finds it.
    groups: [
      { name: 'cli', test: (id) => cli.has(id), priority: 2 },
      { name: 'run', test: (id) => run.has(id), priority: 1 },
    ],
  };
  return { plugin, codeSplitting };
}
