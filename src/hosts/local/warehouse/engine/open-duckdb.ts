/**
 * Opening the warehouse file: the DuckDB instance and its one connection, in
 * UTC, with its schema (a file from before `default_schema` refused, tester-views.ts) and the tables it already holds. A failure closes
 * what was opened and is classified (warehouse-errors.ts): a file another
 * process holds, a damaged one, one that cannot be written.
 */
import { existsSync } from 'node:fs';
import { loadDuckDB } from './duckdb-module.js';
import {
  type Api,
  type Connection,
  type Instance,
  SCHEMA,
  quoteIdent,
  type TableState,
  sanitize,
} from '../base/index.js';
import { type ExistingTableRows, existingTablesOf, readExistingTableRows } from './existing-tables.js';
import { keptExistingTables } from './existing-tables-cache.js';
import { LEGACY_SCHEMA, refuseLegacyTables } from './tester-views.js';

export interface OpenedDuckDb {
  api: Api;
  instance: Instance;
  conn: Connection;
  tables: Map<string, TableState>;
  /** The tables' columns in the file's order (existing-tables.ts). */
  columnOrder: Map<TableState, string[]>;
  /** The `tester` views need making again at close, whatever the run writes (existing-tables.ts). */
  viewsStale: boolean;
  /**
   * The catalogue's rows, when they describe the file as it was opened and opening it sent no DDL:
   * a run that changes no part of the catalogue keeps them for the next (existing-tables-cache.ts).
   */
  existingTableRows: ExistingTableRows | undefined;
}

/**
 * TIMESTAMP <-> TIMESTAMPTZ casts use the session time zone. Sent with the first statement of the
 * session, in its round trip; without ICU, DuckDB has no time zones, refuses it, and already
 * works in UTC: the statement is then sent again alone.
 */
const IN_UTC = `SET TimeZone = 'UTC'; `;

async function inUtc<T>(run: (setup: string) => Promise<T>): Promise<T> {
  try {
    return await run(IN_UTC);
  } catch {
    return run('');
  }
}

export async function openDuckDb(path: string): Promise<OpenedDuckDb> {
  const api = loadDuckDB();
  // A file that does not exist yet holds no tables: its catalogue is not read (10–20 ms).
  const wal = existsSync(`${path}.wal`);
  const fresh = !wal && !existsSync(path);
  let instance: Instance;
  try {
    // One DuckDB thread: a batch's statements run one after another, and
    // the connector runs on the main thread meanwhile. More threads cost
    // about a quarter more CPU on two cores without making batches faster.
    instance = await api.DuckDBInstance.create(path, { threads: '1' });
  } catch (error) {
    throw sanitize(error, `opening ${path}`, path);
  }
  let conn: Connection;
  try {
    conn = await instance.connect();
  } catch (error) {
    instance.closeSync();
    throw sanitize(error, `opening ${path}`, path);
  }
  try {
    // The catalogue first: a file refused (tables of an earlier connector-auth) is left as it was.
    // Kept from the run before when the file is as that run left it (DuckDB holds it now), and no
    // write-ahead log was replayed: then the session's time zone is its only statement.
    const kept = fresh || wal ? undefined : keptExistingTables(path);
    const rows = kept ?? (fresh ? undefined : await inUtc((setup) => readExistingTableRows(conn, setup)));
    const catalogue = rows && existingTablesOf(rows);
    if (catalogue) refuseLegacyTables(catalogue.legacyTables, path);
    // A file this made holds both schemas already: nothing to send.
    const missing = [SCHEMA, LEGACY_SCHEMA].filter((schema) => !catalogue?.schemas.has(schema));
    const create = missing.map((schema) => `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`).join('; ');
    const send = async (sql: string) => void (sql === '' ? undefined : await conn.run(sql));
    if (catalogue === undefined || kept) await inUtc((setup) => send(`${setup}${create}`));
    else await send(create);
    return {
      api,
      instance,
      conn,
      tables: catalogue?.tables ?? new Map(),
      columnOrder: catalogue?.columnOrder ?? new Map(),
      viewsStale: catalogue?.viewsStale ?? false,
      existingTableRows: missing.length === 0 ? rows : undefined,
    };
  } catch (error) {
    conn.closeSync();
    instance.closeSync();
    throw sanitize(error, `opening ${path}`, path);
  }
}
