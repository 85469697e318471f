import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline/promises';
import { resetProject, resetTargets } from '../../hosts/local/index.js';
import type { CliIO, Command } from '../cli-io.js';
import { parseCommandArgs } from '../parse-command-args.js';

const HELP = `Usage: connector-auth reset [project] [--yes]

Deletes <project>/files/warehouse.db and <project>/files/state.json (nothing else).
Asks first on a terminal; --yes (or no terminal) skips the question.`;

const command: Command = {
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('reset', () =>
      parseArgs({ args, allowPositionals: true, options: { yes: { type: 'boolean', short: 'y' }, help: { type: 'boolean', short: 'h' } } }),
    );
    if (values.help) return io.out(HELP), 0;
    const project = positionals[0] ?? '.';
    if (!values.yes && process.stdin.isTTY && io.stderrIsTTY) {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      const answer = await rl.question(`Delete ${resetTargets(project).join(' and ')}? [y/N] `);
      rl.close();
      if (!/^y(es)?$/i.test(answer.trim())) {
        io.err('reset cancelled; nothing deleted');
        return 0;
      }
    }
    const { removed } = await resetProject(project);
    io.out(io.json ? JSON.stringify({ ok: true, removed }) : removed.length ? `removed ${removed.join(', ')}` : 'nothing to remove');
    return 0;
  },
};
export default command;
