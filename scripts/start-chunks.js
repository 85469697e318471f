// Which of our modules share a file in dist/bundle/ (scripts/bundle.js, rolldown's codeSplitting).
//
// Why it matters: on Node 20 a module costs far more than its bytes. Each file is resolved, read,
// looked up for its package.json and linked, and each import between files is resolved again; past
// a few dozen such steps V8 optimizes Node's own path functions, which pages TurboFan into the
// process. esbuild, which bundled us before, split by who imports what: `debug` loaded 28 files of
// dist/bundle/. In a handful it runs in 0.95x the time and 4-5 MiB less (docs/benchmarks.md, seventh
// pass). So three groups are named here; everything else is split as the bundler splits it (each
// other command, each source and auth method with the packages it loads, the clients):
//
// - `cli`: what `connector-auth --help` loads: cli/main.ts's static imports.
// - `cli-shared`: the CLI's other shared modules (argument parsing, tables, error printing,
//   progress) whose static imports reach no zod, with those imports. `version` loads `cli`, this and
//   its own chunk; a command whose module reads a configuration loads `run` and zod too.
// - `run`: what a connector run loads: the package's entry (every connector imports it) and the
//   `debug` command (an author's edit-run cycle), with all they import statically; and what a run
//   of the default source loads at its start: the REST source and the static header credentials
//   (basic, bearer, api_key), which the built-in tables (auth/built-in-methods.ts, sources/built-in-sources.ts) import when named. In files of their own they
//   cost a REST run two more files read through libuv's thread pool while DuckDB opens (each read
//   then waits for a core); here they cost any other run ~20 KB more to parse.
// A module two groups reach goes to the first of them in that order. The stand-ins for Node's
// built-ins (builtin-imports.js) go with the first group that imports them, as our modules do.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BUILTIN_PREFIX } from './builtin-imports.js';

/**
 * The module our sources' `import { z } from 'zod'` resolves to (scripts/bundle.js): it loads zod's
 * bundled copy through the code cache. It goes to the run chunk with the code cache it imports.
 */
export const ZOD_MODULE = '\0connector-auth:zod';

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
 * `codeSplitting` option that uses them (rolldown reads it when it makes the chunks, after that).
 */
export function startChunks(root) {
  const src = join(root, 'src');
  const main = join(src, 'cli', 'main.ts');
  const groups = { cli: new Set(), 'cli-shared': new Set(), run: new Set() };
  const plugin = {
    name: 'start-chunks',
    buildEnd(error) {
      if (error) return;
      const ours = (roots) =>
        [...staticClosure(this, roots)].filter(
          (id) => id.startsWith(src) || id === ZOD_MODULE || id.startsWith(BUILTIN_PREFIX),
        );
      const cliModules = readdirSync(join(src, 'cli'))
        .filter((name) => name.endsWith('.ts'))
        .map((name) => join(src, 'cli', name));
      const light = cliModules.filter((id) => !staticClosure(this, [id]).has(ZOD_MODULE));
      if (!light.includes(main)) throw new Error('cli/main.ts reaches zod: --help would load it');
      const roots = {
        cli: [main],
        'cli-shared': light,
        run: [
          join(src, 'index.ts'),
          join(src, 'cli', 'commands', 'project', 'debug.ts'),
          join(src, 'sources', 'rest.ts'),
          ...['basic.ts', 'bearer.ts', 'api-key.ts'].map((name) => join(src, 'auth', 'static', name)),
        ],
      };
      const taken = new Set([main, join(src, 'index.ts')]); // each stays in its entry's file
      for (const [name, ids] of Object.entries(roots))
        for (const id of ours(ids)) {
          if (taken.has(id)) continue;
          groups[name].add(id);
          taken.add(id);
        }
      if (groups.run.size < 50)
        throw new Error(`the run chunk found only ${groups.run.size} modules: update scripts/start-chunks.js`);
    },
  };
  const codeSplitting = {
    groups: Object.entries(groups).map(([name, ids], index) => ({
      name,
      test: (id) => ids.has(id),
      // Each module is in one set; the priority keeps rolldown from moving one to a later group
      // when it follows a group's imports.
      priority: 3 - index,
    })),
  };
  return { plugin, codeSplitting };
}
