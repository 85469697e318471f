import { probeProject } from '../../../project/index.js';
import { redactedJson } from '../../../secrets/index.js';
import type { CliIO, Command } from '../../cli-io.js';
import { PROJECT_OPTIONS, parseCommandArgs, projectLocation } from '../../parse-command-args.js';

const HELP = `Usage: connector-auth probe [project] [--configuration FILE] [--json]

Authenticates and runs the source's lightweight probe only: no update(), nothing written.`;

const command: Command = {
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('probe', {
      args,
      allowPositionals: true,
      options: PROJECT_OPTIONS,
    });
    if (values.help) return (io.out(HELP), 0);
    const result = await probeProject({
      ...projectLocation(positionals, values),
      log: io.log,
    });
    io.out(
      io.json
        ? redactedJson({
            ok: true,
            target: result.target,
            outcome: result.outcome,
            elapsed_ms: Math.round(result.elapsedMs),
          })
        : `probe OK: ${result.target} → ${result.outcome} in ${Math.round(result.elapsedMs)} ms`,
    );
    return 0;
  },
};
export default command;
