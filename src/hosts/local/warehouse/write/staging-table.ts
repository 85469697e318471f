/**
 * The TEMP staging table a run's values travel through: staged columns are
 * appended as DuckDB data chunks (no SQL text, no per-row statements), and
 * every cast that can fail is checked in SQL so a bad value is reported by
 * table and column, never by value. Also names the TEMP table the merge of
 * an update run goes through, so both are dropped together after a failure.
 */
import {
  type Api,
  type Connection,
  type DataChunk,
  type DuckDBType,
  quoteIdent,
  columnLabel,
  warehouseError,
} from '../base/index.js';
import { stageVectorType, type StagedColumn } from './staged-column.js';

const STAGE = '__connector_auth_stage';
const MERGED = '__connector_auth_merged';
/** marks failures of the staging cast check in DuckDB's error() messages */
const CHECK_MARK = 'connector_auth_cast_check';

export const STAGE_REF = `temp.main.${quoteIdent(STAGE)}`;
export const MERGED_TABLE = quoteIdent(MERGED);
export const MERGED_REF = `temp.main.${quoteIdent(MERGED)}`;

export class StagingTable {
  readonly #api: Api;
  readonly #conn: Connection;
  /** the layout of the TEMP staging table, while it exists and is empty */
  #layout: string | undefined;

  constructor(api: Api, conn: Connection) {
    this.#api = api;
    this.#conn = conn;
  }

  /**
   * Writes the staged columns (plus optional presence masks and a sequence
   * number) into the TEMP staging table as DuckDB data chunks. A run's
   * statements end by recreating the table empty (a DELETE would keep its
   * memory), so a steady stream of batches stages without a round trip.
   * Returns the statement that checks every cast that can fail (DuckDB's
   * error() aborts the transaction; the message carries only column indexes),
   * or undefined.
   */
  async load(
    columns: StagedColumn[],
    n: number,
    masks: boolean[][] | undefined,
    sequence: boolean,
  ): Promise<string | undefined> {
    const layout = stagingLayout(this.#api, columns, masks, sequence);
    await this.#ensureLayout(layout.sql);
    await this.#append(layout, n);
    return castCheck(columns);
  }

  /** The staging table recreated, empty, when the run's layout differs from the last one's. */
  async #ensureLayout(sql: string): Promise<void> {
    if (this.#layout === sql) return;
    this.#layout = undefined;
    await this.#conn.run(`CREATE OR REPLACE TEMP TABLE ${quoteIdent(STAGE)} (${sql})`);
    this.#layout = sql;
  }

  /** The run's values appended chunk by chunk, a sequence number last when the layout has one. */
  async #append(layout: StagingLayout, n: number): Promise<void> {
    const api = this.#api;
    // Resolves without a round trip: the appender is created synchronously.
    const appender = await this.#conn.createAppender(STAGE, 'main', 'temp');
    try {
      const chunkSize = api.DuckDBVector.standardSize();
      for (let offset = 0; offset < n; offset += chunkSize) {
        const size = Math.min(chunkSize, n - offset);
        const chunk = api.DuckDBDataChunk.create(layout.types, size);
        fillChunk(chunk, layout, offset, size);
        appender.appendDataChunk(chunk);
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }

  /** Statements that leave the staging table empty, its memory freed. */
  emptyStatements(): string[] {
    return [`CREATE OR REPLACE TEMP TABLE ${quoteIdent(STAGE)} (${this.#layout})`];
  }

  /** Drops the temporary tables (after a failed run). */
  async drop(): Promise<void> {
    this.#layout = undefined;
    try {
      await this.#conn.run(`DROP TABLE IF EXISTS ${STAGE_REF}; DROP TABLE IF EXISTS ${MERGED_REF}`);
    } catch {
      // nothing to free
    }
  }
}

/** A failed cast check as an error naming the column, or undefined for any other error. */
export function castCheckError(error: unknown, table: string, staged: StagedColumn[]): Error | undefined {
  const match = error instanceof Error ? new RegExp(`${CHECK_MARK}:(\\d+):(\\d+)`).exec(error.message) : null;
  const column = match === null ? undefined : staged[Number(match[1])];
  if (match !== null && column !== undefined) {
    return warehouseError(
      `${columnLabel(table, column.name)}: ${match[2]} value(s) cannot be stored as ${column.target}`,
    );
  }
  return undefined;
}

/** The staging table's columns: their SQL definitions, DuckDB types and values. */
interface StagingLayout {
  sql: string;
  types: DuckDBType[];
  /** each column's values, masks after the staged columns; the sequence column has none */
  sources: unknown[][];
  sequence: boolean;
}

/** Staged columns as `c<i>`, presence masks as `p<i>`, then `__seq` when the run is sequenced. */
function stagingLayout(
  api: Api,
  columns: StagedColumn[],
  masks: boolean[][] | undefined,
  sequence: boolean,
): StagingLayout {
  const types: DuckDBType[] = [];
  const defs: string[] = [];
  const sources: unknown[][] = [];
  columns.forEach((column, i) => {
    defs.push(`c${i} ${column.stageType}`);
    types.push(stageVectorType(api, column.stageType));
    sources.push(column.values);
  });
  masks?.forEach((mask, i) => {
    defs.push(`p${i} BOOLEAN`);
    types.push(api.BOOLEAN);
    sources.push(mask);
  });
  if (sequence) {
    defs.push('__seq INTEGER');
    types.push(api.INTEGER);
  }
  return { sql: defs.join(', '), types, sources, sequence };
}

/** A vector of a data chunk as the appender fills it. */
interface ItemVector {
  setItem(i: number, v: unknown): void;
  flush(): void;
}

/** One chunk's rows, `offset` to `offset + size`, of every staging column. */
function fillChunk(chunk: DataChunk, layout: StagingLayout, offset: number, size: number): void {
  const sources = layout.sources;
  for (let c = 0; c < sources.length; c++) {
    const vector = chunk.getColumnVector(c) as unknown as ItemVector;
    const source = sources[c] as unknown[];
    for (let j = 0; j < size; j++) vector.setItem(j, source[offset + j] ?? null);
    vector.flush();
  }
  if (layout.sequence) {
    const vector = chunk.getColumnVector(sources.length) as unknown as ItemVector;
    for (let j = 0; j < size; j++) vector.setItem(j, offset + j);
    vector.flush();
  }
}

/**
 * The statement that checks every cast that can fail (DuckDB's error() aborts the transaction;
 * the message carries only column indexes), or undefined.
 */
function castCheck(columns: StagedColumn[]): string | undefined {
  const checked: string[] = [];
  const failures: string[] = [];
  columns.forEach((column, i) => {
    if (!column.check) return;
    const k = checked.length;
    checked.push(`count_if(c${i} IS NOT NULL AND TRY_CAST(c${i} AS ${column.target}) IS NULL) AS b${k}`);
    failures.push(`WHEN b${k} > 0 THEN error('${CHECK_MARK}:${i}:' || b${k})`);
  });
  if (checked.length === 0) return undefined;
  return `SELECT CASE ${failures.join(' ')} END FROM (SELECT ${checked.join(', ')} FROM ${STAGE_REF})`;
}
