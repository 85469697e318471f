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
import { readCatalogue } from './catalogue.js';
import { LEGACY_SCHEMA, refuseLegacyTables } from './tester-views.js';

export interface OpenedDuckDb {
  api: Api;
  instance: Instance;
  conn: Connection;
  tables: Map<string, TableState>;
  /** The tables' columns in the file's order (catalogue.ts). */
  columnOrder: Map<TableState, string[]>;
  /** The `tester` views need making again at close, whatever the run writes (catalogue.ts). */
  viewsStale: boolean;
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
  const fresh = !existsSync(path) && !existsSync(`${path}.wal`);
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
    const catalogue = fresh ? undefined : await inUtc((setup) => readCatalogue(conn, setup));
    if (catalogue) refuseLegacyTables(catalogue.legacyTables, path);
    // A file this made holds both schemas already: nothing to send.
    const missing = [SCHEMA, LEGACY_SCHEMA].filter((schema) => !catalogue?.schemas.has(schema));
    const create = missing.map((schema) => `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`).join('; ');
    if (catalogue === undefined) await inUtc((setup) => conn.run(`${setup}${create}`));
    else if (create !== '') await conn.run(create);
    return {
      api,
      instance,
      conn,
      tables: catalogue?.tables ?? new Map(),
      columnOrder: catalogue?.columnOrder ?? new Map(),
      viewsStale: catalogue?.viewsStale ?? false,
    };
  } catch (error) {
    conn.closeSync();
    instance.closeSync();
    throw sanitize(error, `opening ${path}`, path);
  }
}
