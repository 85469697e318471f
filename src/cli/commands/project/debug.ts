import { runDebug } from '../../../hosts/local/index.js';
import { redactedJson } from '../../../secrets/index.js';
import type { CliIO, Command } from '../../cli-io.js';
import { argumentError, PROJECT_OPTIONS, parseCommandArgs, projectLocation } from '../../parse-command-args.js';
import { formatTable } from '../../format-table.js';
import { syncProgress } from '../../sync-progress.js';

const DEFAULT_PROGRESS_SECONDS = 5;

const HELP = `Usage: connector-auth debug [project] [--configuration FILE] [--state FILE] [--progress SECONDS] [--json]

Loads <project>/connector.ts, authenticates, probes the source, runs update() and writes
<project>/files/warehouse.db (DuckDB, schema default_schema; also readable as tester) and
<project>/files/state.json.
  --configuration FILE   default: $CONNECTOR_CONFIGURATION, then <project>/configuration.json
  --state FILE           start from this state instead of files/state.json
  --progress SECONDS     without a terminal (a CI log, --json): a progress line this often, rows per
                         table, checkpoints and time elapsed (default ${DEFAULT_PROGRESS_SECONDS}; 0: none)`;

const command: Command = {
  async run(args: string[], io: CliIO): Promise<number> {
    const started = performance.now();
    const { values, positionals } = parseCommandArgs('debug', {
      args,
      allowPositionals: true,
      options: { ...PROJECT_OPTIONS, state: { type: 'string' }, progress: { type: 'string' } },
    });
    if (values.help) return (io.out(HELP), 0);
    const interval = values.progress === undefined ? DEFAULT_PROGRESS_SECONDS : Number(values.progress);
    if (!Number.isFinite(interval) || interval < 0 || interval > 3600)
      throw argumentError('debug', '--progress must be a number of seconds from 0 to 3600');
    const progress = syncProgress(io, interval, started);
    const result = await runDebug({
      ...projectLocation(positionals, values),
      ...(values.state ? { statePath: values.state } : {}),
      log: io.log,
      onProgress: progress.show,
      progressEveryMs: progress.everyMs,
    }).finally(progress.done);
    const { counts } = result;
    if (io.json) {
      const { schemaChanges, tables, upsertPaths, ...rest } = counts;
      io.out(
        redactedJson({
          ok: true,
          probe: {
            target: result.probe.target,
            outcome: result.probe.outcome,
            elapsed_ms: Math.round(result.probe.elapsedMs),
          },
          counts: {
            ...rest,
            schema_changes: schemaChanges,
            upserts_appended: upsertPaths?.appended ?? 0,
            upserts_merged: upsertPaths?.merged ?? 0,
          },
          rows_by_table: tables ?? {},
          warehouse: result.paths.warehouse,
          state: result.paths.state,
          elapsed_ms: Math.round(result.elapsedMs),
        }),
      );
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
