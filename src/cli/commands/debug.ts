import { parseArgs } from 'node:util';
import { runDebug } from '../../hosts/local/index.js';
import { redactedJson } from '../../secrets/index.js';
import type { CliIO, Command } from '../cli-io.js';
import { PROJECT_OPTIONS, parseCommandArgs, projectLocation } from '../parse-command-args.js';
import { formatTable } from '../format-table.js';

const HELP = `Usage: connector-auth debug [project] [--configuration FILE] [--state FILE] [--json]

Loads <project>/connector.ts, authenticates, probes the source, runs update() and writes
<project>/files/warehouse.db (DuckDB, schema tester) and <project>/files/state.json.
  --configuration FILE   default: $CONNECTOR_CONFIGURATION, then <project>/configuration.json
  --state FILE           start from this state instead of files/state.json`;

const command: Command = {
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('debug', () =>
      parseArgs({
        args,
        allowPositionals: true,
        options: { ...PROJECT_OPTIONS, state: { type: 'string' } },
      }),
    );
    if (values.help) return io.out(HELP), 0;
    const result = await runDebug({
      ...projectLocation(positionals, values),
      ...(values.state ? { statePath: values.state } : {}),
      log: io.log,
      onProgress: (c) => io.progress(`  syncing… ${c.upserts + c.updates + c.deletes} operations, ${c.checkpoints} checkpoints`),
    }).finally(() => io.progress(undefined));
    const { counts } = result;
    if (io.json) {
      io.out(redactedJson({ ok: true, probe: result.probe, counts, warehouse: result.paths.warehouse, state: result.paths.state, elapsed_ms: Math.round(result.elapsedMs) }));
    } else {
      io.out(
        formatTable(
          ['Operation', 'Calls'],
          [
            ['Upserts', counts.upserts],
            ['Updates', counts.updates],
            ['Deletes', counts.deletes],
            ['Truncates', counts.truncates],
            ['SchemaChanges', counts.schemaChanges],
            ['Checkpoints', counts.checkpoints],
          ],
        ),
      );
      io.out(`Sync SUCCEEDED in ${(result.elapsedMs / 1000).toFixed(2)} s — warehouse ${result.paths.warehouse}`);
    }
    return 0;
  },
};
export default command;
