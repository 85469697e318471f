import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initProject, templateNames } from '../../../project/index.js';
import type { CliIO, Command } from '../../cli-io.js';
import { parseCommandArgs } from '../../parse-command-args.js';

/** The package's one runnable example: the demo's configuration, for the emulator on port 8080. */
const EXAMPLE = fileURLToPath(new URL('../../../configuration.example.json', import.meta.url));

const command: Command = {
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('init', {
      args,
      allowPositionals: true,
      options: {
        template: { type: 'string', short: 't' },
        registry: { type: 'boolean' },
        auth: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      io.out(
        `Usage: connector-auth init [dir] [--template ${(await templateNames()).join('|')}] [--registry] [--auth custom]\n\n` +
          'Scaffolds a connector project in dir (default: the current directory, which must be empty but for .git);\n' +
          'the template defaults to rest-api. Its README.md says how to run it locally.\n' +
          'Its package.json depends on this connector-auth, packed into vendor/ (npm pack);\n' +
          '--registry: on connector-auth from the npm registry instead, with no vendor/.\n' +
          '--auth custom: an auth method of your own in session-auth.ts, offered in connector.ts (docs/auth/custom.md).',
      );
      return 0;
    }
    const template = values.template ?? 'rest-api';
    const { dir, files } = await initProject(positionals[0] ?? '.', template, {
      registry: values.registry === true,
      ...(values.auth !== undefined ? { auth: values.auth } : {}),
    });
    if (io.json) {
      io.out(JSON.stringify({ ok: true, dir, template, files, example_configuration: EXAMPLE }));
      return 0;
    }
    // Commands that work where the user is: after `npm install`, `npx connector-auth` runs the
    // project's own copy (node_modules/.bin), the version its package.json names.
    const where = relative(process.cwd(), dir);
    io.out(
      [
        `created ${dir} (template ${template}): ${files.join(', ')}`,
        'next:',
        ...(where === '' ? [] : [`  cd ${where.includes(' ') ? JSON.stringify(where) : where}`]),
        "  npm install                      # connector-auth, the source's SDK, DuckDB for debug, the types",
        '  edit configuration.json (every value a string; README.md lists the keys and a local server to try it against)',
        "  npx connector-auth validate      # the configuration, offline (the project's own connector-auth)",
        '  npx connector-auth debug         # probe, then update() into files/warehouse.db',
      ].join('\n'),
    );
    return 0;
  },
};
export default command;
