/**
 * The direct way an upsert run reaches its table: its rows made into DuckDB data chunks of the
 * table's shape, appended by the engine's appender and inserted as they are, with no cast check and
 * no merge statement (append-groups.ts). That is right only when the table holds none of the run's
 * keys and no key is given twice, which is what a first sync into a new table looks like; the
 * table's primary key index refuses anything else, and the rows are then merged (append-groups.ts).
 * Measured on 1,000,000 upserts: the merge path's staging, window and INSERT OR REPLACE took about
 * as long again as appending the rows.
 *
 * Only values whose conversion to the column's type cannot fail are appended directly (booleans,
 * numbers into DOUBLE and BIGINT, and into SMALLINT and INTEGER when in range, text, bytes, JSON text, Dates into timestamps); a run with any
 * other column is merged, where every cast is checked and a bad value named by column.
 */
import {
  type Api,
  type Connection,
  type DataChunk,
  type DuckDBType,
  DELETED,
  INT64_MAX,
  INT64_MIN,
  JsonText,
  NARROW_INTEGER_RANGES,
  type Run,
  tableRef,
  SYNCED,
  type TableState,
  TWO_POW_63,
  isValidDate,
} from '../base/index.js';
import { stageVectorType, type StagedColumn } from './staged-column.js';

/**
 * A column as the appender takes it: the vector type and its values, each passed through
 * `convert` (when given) on its way into the vector, so no converted copy of the run is made.
 */
export interface ChunkColumn {
  type: DuckDBType;
  values: unknown[] | undefined;
  convert?: (value: unknown) => unknown;
  constant?: unknown;
}

/** Micros since the epoch for a Date's milliseconds, exact (BigInt arithmetic only where needed). */
function micros(ms: number): bigint {
  const us = ms * 1000;
  return Number.isSafeInteger(us) ? BigInt(us) : BigInt(ms) * 1000n;
}

/**
 * The staged columns as the appender can take them, or undefined when one of them needs a cast
 * that could fail (then the run is merged).
 */
export function directColumns(api: Api, staged: StagedColumn[]): Map<string, ChunkColumn> | undefined {
  const columns = new Map<string, ChunkColumn>();
  for (const column of staged) {
    if (column.check) return undefined;
    const asIs = column.expr('c') === 'c';
    const vector = stageVectorType(api, column.stageType);
    if (asIs && column.stageType === column.target) {
      columns.set(column.name, { type: vector, values: column.values });
    } else if (column.target === 'JSON' && column.stageType === 'VARCHAR') {
      // JSON text already made valid by the staging (toJsonText); the appender casts VARCHAR to JSON.
      columns.set(column.name, { type: api.VARCHAR, values: column.values });
    } else if (NARROW_INTEGER_RANGES.has(column.target) && column.stageType === 'DOUBLE') {
      // Integers in the column's range, checked by the staging (no check asked).
      columns.set(column.name, { type: narrowIntegerVector(api, column.target), values: column.values });
    } else if (column.target === 'BIGINT' && column.stageType === 'DOUBLE') {
      // Integers below 2^63 in magnitude, checked by the staging.
      columns.set(column.name, {
        type: api.BIGINT,
        values: column.values,
        convert: (value) => BigInt(value as number),
      });
    } else if ((column.target === 'TIMESTAMPTZ' || column.target === 'TIMESTAMP') && column.stageType === 'DOUBLE') {
      // Dates staged as epoch milliseconds.
      columns.set(column.name, {
        type: column.target === 'TIMESTAMPTZ' ? api.TIMESTAMPTZ : api.TIMESTAMP,
        values: column.values,
        convert: timestampOf((value) => value as number),
      });
    } else {
      return undefined;
    }
  }
  return columns;
}

/**
 * A run's columns as the appender can take them straight from the run, or undefined. Right when
 * every column it gives exists in the table and each value fits the column's type as it is: no
 * widening, no new column, no cast that could fail. That is what the runs of a steady sync look
 * like, and for them the run's values are read once, into the chunks, instead of being planned,
 * staged and converted first (schema-plan.ts, staged-column.ts: a fifth of the JavaScript
 * thread's time on 1,000,000 upserts). Any other run takes that way.
 */
export function fittingColumns(api: Api, state: TableState, run: Run): Map<string, ChunkColumn> | undefined {
  const columns = new Map<string, ChunkColumn>();
  for (const [name, values] of run.columns) {
    const column = state.columns.get(name);
    if (column === undefined || !column.exists || column.type === undefined) return undefined;
    const fitting = fittingColumn(api, column.type, values);
    if (fitting === undefined) return undefined;
    columns.set(name, fitting);
  }
  return columns;
}

function fittingColumn(api: Api, type: string, values: unknown[]): ChunkColumn | undefined {
  const every = (fits: (value: unknown) => boolean): boolean => {
    for (let i = 0; i < values.length; i++) {
      const value = values[i];
      if (value !== undefined && value !== null && !fits(value)) return false;
    }
    return true;
  };
  switch (type) {
    case 'BOOLEAN':
      return every((value) => typeof value === 'boolean') ? { type: api.BOOLEAN, values } : undefined;
    case 'DOUBLE':
      return every((value) => typeof value === 'number') ? { type: api.DOUBLE, values } : undefined;
    case 'VARCHAR':
      return every((value) => typeof value === 'string') ? { type: api.VARCHAR, values } : undefined;
    case 'SMALLINT':
    case 'INTEGER': {
      const [min, max] = NARROW_INTEGER_RANGES.get(type)!;
      return every((value) => typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max)
        ? { type: narrowIntegerVector(api, type), values }
        : undefined;
    }
    case 'BIGINT':
      return every((value) =>
        typeof value === 'number'
          ? Number.isInteger(value) && value >= -TWO_POW_63 && value < TWO_POW_63
          : typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX,
      )
        ? {
            type: api.BIGINT,
            values,
            convert: (value) => (typeof value === 'bigint' ? value : BigInt(value as number)),
          }
        : undefined;
    case 'TIMESTAMPTZ':
    case 'TIMESTAMP':
      if (!every((value) => value instanceof Date && isValidDate(value))) return undefined;
      return {
        type: type === 'TIMESTAMPTZ' ? api.TIMESTAMPTZ : api.TIMESTAMP,
        values,
        convert: timestampOf((value) => (value as Date).getTime()),
      };
    case 'JSON':
      // The text serialized when the row was buffered; the appender casts VARCHAR to JSON.
      return every((value) => value instanceof JsonText)
        ? { type: api.VARCHAR, values, convert: (value) => (value as JsonText).text }
        : undefined;
    default:
      return undefined;
  }
}

/** The vector type of SMALLINT or INTEGER. */
function narrowIntegerVector(api: Api, type: string): DuckDBType {
  return type === 'SMALLINT' ? api.SMALLINT : api.INTEGER;
}

/**
 * A conversion to a timestamp vector's value from epoch milliseconds. The vector copies `micros`
 * out of the object it is given: one object serves every value.
 */
function timestampOf(ms: (value: unknown) => number): (value: unknown) => unknown {
  const holder = { micros: 0n };
  return (value) => {
    holder.micros = micros(ms(value));
    return holder;
  };
}

/**
 * The table's columns in the order the appender takes them (after this transaction's DDL). By
 * DESCRIBE: `duckdb_columns()` binds every one of DuckDB's own views to list their columns too
 * (6-7 ms against under 1, on the path of every first flush of a session).
 */
export async function physicalColumns(conn: Connection, table: string): Promise<string[]> {
  const reader = await conn.runAndReadAll(`SELECT column_name FROM (DESCRIBE ${tableRef(table)})`);
  return (reader.getRowsJS() as [string][]).map(([name]) => name);
}

/**
 * Builds `n` rows in the table's column order as data chunks (`types` the table's column types):
 * the given columns, NULL in the others, `_fivetran_synced` = `synced`, `_fivetran_deleted` = false.
 */
export function buildChunks(
  api: Api,
  order: string[],
  types: DuckDBType[],
  given: Map<string, ChunkColumn>,
  n: number,
  synced: Date,
): DataChunk[] {
  const chunks: DataChunk[] = [];
  const columns: ChunkColumn[] = order.map((name, i) => {
    if (name === SYNCED)
      return { type: api.TIMESTAMPTZ, values: undefined, constant: { micros: micros(synced.getTime()) } };
    if (name === DELETED) return { type: api.BOOLEAN, values: undefined, constant: false };
    return given.get(name) ?? { type: types[i] as DuckDBType, values: undefined, constant: null };
  });
  const chunkTypes = columns.map((column) => column.type);
  const chunkSize = api.DuckDBVector.standardSize();
  for (let offset = 0; offset < n; offset += chunkSize) {
    const size = Math.min(chunkSize, n - offset);
    const chunk = api.DuckDBDataChunk.create(chunkTypes, size);
    for (let c = 0; c < columns.length; c++) {
      const column = columns[c] as ChunkColumn;
      const vector = chunk.getColumnVector(c) as unknown as { setItem(i: number, v: unknown): void; flush(): void };
      const { values, convert } = column;
      if (values === undefined) {
        for (let j = 0; j < size; j++) vector.setItem(j, column.constant);
      } else if (convert === undefined) {
        // A column absent from the run's last rows is shorter than the run: undefined is NULL.
        for (let j = 0; j < size; j++) vector.setItem(j, values[offset + j] ?? null);
      } else {
        for (let j = 0; j < size; j++) {
          const value = values[offset + j];
          vector.setItem(j, value === undefined || value === null ? null : convert(value));
        }
      }
      vector.flush();
    }
    chunks.push(chunk);
  }
  return chunks;
}
