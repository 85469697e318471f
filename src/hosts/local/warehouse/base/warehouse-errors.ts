import { ConnectorError } from '../../../../errors/index.js';
import { redactedLine } from '../../../../secrets/index.js';

/**
 * The warehouse's errors. Its own checks of what a connector writes are plain
 * `Error`s naming the table and column, never a row value (the run reports
 * them as the connector's update() failing). A failure of DuckDB itself — a
 * file that is damaged, locked, not writable, a full disk — is a
 * `ConnectorError` (exit 1) with a code and a hint naming `reset`, keeping
 * DuckDB's own message, which says what happened: redacted first (it may quote
 * a value), then put on one line and bounded (redact-then-shape.ts).
 */

/**
 * The warehouse's own refusal of what a connector wrote: it names the table and column, never a row
 * value, so it is rethrown as it is; the run reports it as the connector's update() failing.
 */
export class WarehouseRefusal extends Error {
  override readonly name = 'WarehouseRefusal';
}

export function warehouseError(message: string): Error {
  return new WarehouseRefusal(`warehouse: ${message}`);
}

function named(name: string): string {
  return JSON.stringify(name);
}

export function tableLabel(table: string): string {
  return `table ${named(table)}`;
}

export function columnLabel(table: string, column: string): string {
  return `table ${named(table)}, column ${named(column)}`;
}

/**
 * An error from DuckDB, as a classified error that keeps DuckDB's message
 * (redacted, one line); an error of ours passes unchanged.
 */
export function sanitize(error: unknown, context: string, path?: string): Error {
  if (error instanceof WarehouseRefusal || error instanceof ConnectorError) return error;
  const raw = error instanceof Error ? error.message : String(error);
  const said = redactedLine(raw, 300) ?? 'no message';
  const file = path ?? 'files/warehouse.db';
  const lock = /Could not set lock on file[^(]*\(PID (\d+)\)/.exec(raw);
  if (lock) {
    return new ConnectorError(`warehouse: ${file} is open in another process (PID ${lock[1]})`, {
      code: 'warehouse_locked',
      hint: 'wait for that process (another run, or a DuckDB shell on the file) to finish, then run again',
      cause: error,
    });
  }
  const damaged = /not a valid DuckDB database|corrupt|checksum|Serialization Error/i.test(raw);
  const io = /^IO Error|Permission denied|No space left|File too large|Read-only file system/i.test(raw);
  return new ConnectorError(`warehouse: ${context} failed: ${said}`, {
    code: damaged ? 'warehouse_damaged' : io ? 'warehouse_io_error' : 'warehouse_error',
    hint: damaged
      ? `${file} cannot be read as a warehouse: move it away, or start over with 'connector-auth reset' (deletes the warehouse and the state)`
      : io
        ? `check that files/ is writable and the disk has room; if ${file} is damaged, start over with 'connector-auth reset'`
        : `if the warehouse no longer matches the connector's tables, start over with 'connector-auth reset' (deletes the warehouse and the state)`,
    cause: error,
  });
}
