import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { initProject, templateNames } from '../../project/index.js';
import type { CliIO, Command } from '../cli-io.js';
import { parseCommandArgs } from '../parse-command-args.js';

/** The package's one runnable example: the demo's configuration, for the emulator on port 8080. */
const EXAMPLE = fileURLToPath(new URL('../../../configuration.example.json', import.meta.url));
const OFFLINE_EXAMPLE = `offline: \`connector-auth emulator --port 8080\` serves what ${EXAMPLE} configures (the pipeline-metadata template runs with it as its configuration.json)`;

const command: Command = {
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('init', () =>
      parseArgs({ args, allowPositionals: true, options: { template: { type: 'string', short: 't' }, help: { type: 'boolean', short: 'h' } } }),
    );
    if (values.help || positionals[0] === undefined) {
      io.out(`Usage: connector-auth init <dir> [--template ${(await templateNames()).join('|')}]  (default rest-api)`);
      return values.help ? 0 : 2;
    }
    const { dir, files } = await initProject(positionals[0], values.template ?? 'rest-api');
    io.out(
      io.json
        ? JSON.stringify({ ok: true, dir, files, example_configuration: EXAMPLE })
        : `created ${dir}: ${files.join(', ')}\nnext: edit configuration.json, then run  connector-auth debug ${positionals[0]}\n${OFFLINE_EXAMPLE}`,
    );
    return 0;
  },
};
export default command;
