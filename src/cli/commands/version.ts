import { readFile } from 'node:fs/promises';
import type { CliIO, Command } from '../cli-io.js';
import { parseCommandArgs } from '../parse-command-args.js';

/** `connector-auth version` (also `--version`): the package's version, as `fivetran version` prints the SDK's. */
const command: Command = {
  async run(args: string[], io: CliIO): Promise<number> {
    const { values } = parseCommandArgs('version', { args, options: { help: { type: 'boolean', short: 'h' } } });
    if (values.help)
      return (
        io.out(
          'Usage: connector-auth version [--json]\n\nPrints the version of connector-auth (and, with --json, of Node).',
        ),
        0
      );
    const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    io.out(io.json ? JSON.stringify({ ok: true, version: pkg.version, node: process.version }) : pkg.version);
    return 0;
  },
};
export default command;
