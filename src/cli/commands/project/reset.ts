import { createInterface } from 'node:readline/promises';
import { resetProject, resetTargets } from '../../../hosts/local/index.js';
import type { CliIO, Command } from '../../cli-io.js';
import { argumentError, parseCommandArgs } from '../../parse-command-args.js';

const HELP = `Usage: connector-auth reset [project] [--yes | --force]

Deletes <project>/files/warehouse.db and <project>/files/state.json (nothing else): the next debug
starts from an empty warehouse and no state.
Asks first on a terminal. Without a terminal to ask on, the answer is no (as the Python SDK answers
a question it cannot ask): nothing is deleted and the exit code is 2, unless --yes or --force says so.
  -y, --yes, --force   delete without asking`;

const command: Command = {
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('reset', {
      args,
      allowPositionals: true,
      options: {
        yes: { type: 'boolean', short: 'y' },
        force: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) return (io.out(HELP), 0);
    const project = positionals[0] ?? '.';
    if (!values.yes && !values.force) {
      const question = `Delete ${resetTargets(project).join(' and ')}?`;
      if (!(process.stdin.isTTY && io.stderrIsTTY)) {
        // A script that meant to start over must not go on as if it had: the "no" is an exit code.
        throw argumentError(
          'reset',
          `${question} No terminal to ask on, so the answer is no: nothing deleted; pass --yes (or --force) to reset without a question`,
        );
      }
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      const answer = await rl.question(`${question} [y/N] `);
      rl.close();
      if (!/^y(es)?$/i.test(answer.trim())) {
        io.err('reset cancelled; nothing deleted');
        return 0;
      }
    }
    const { removed } = await resetProject(project);
    io.out(
      io.json
        ? JSON.stringify({ ok: true, removed })
        : removed.length
          ? `removed ${removed.join(', ')}`
          : 'nothing to remove',
    );
    return 0;
  },
};
export default command;
