import { validateProject } from '../../../project/index.js';
import type { CliIO, Command } from '../../cli-io.js';
import { PROJECT_OPTIONS, parseCommandArgs, projectLocation } from '../../parse-command-args.js';

const HELP = `Usage: connector-auth validate [project] [--configuration FILE] [--json]

Checks the configuration against the schemas of its auth method, its source and the connector,
and what the values mean as a run checks them before its first connection: key material
(certificates, private keys, credential files), addresses (a token URL must be https://), the SSH
tunnel's settings. Sends nothing over the network.`;

const command: Command = {
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('validate', {
      args,
      allowPositionals: true,
      options: PROJECT_OPTIONS,
    });
    if (values.help) return (io.out(HELP), 0);
    const report = await validateProject({
      ...projectLocation(positionals, values),
      log: io.log,
    });
    io.out(
      io.json
        ? JSON.stringify({
            ok: true,
            configuration: report.configuration,
            auth_method: report.authMethod,
            source: report.source,
            keys: report.keys,
            secret_keys: report.secretKeys,
            unknown_keys: report.unknownKeys,
          })
        : `configuration valid: ${report.configuration}\n  auth_method ${report.authMethod}, source ${report.source}, ${report.keys} keys, secret: ${report.secretKeys.join(', ') || 'none'}`,
    );
    return 0;
  },
};
export default command;
