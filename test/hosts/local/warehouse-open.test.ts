import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { keptExistingTables } from '../../../src/hosts/local/warehouse/engine/index.js';

/**
 * Opening a warehouse file (open-duckdb.ts) sends the session's time zone with its first statement
 * and makes only the schemas the file lacks. Each open is a fresh `node` with the machine's time
 * zone set to New York (DuckDB takes its default from TZ once per process), loading the built
 * engine (dist/, which `npm test` builds).
 */
const ENGINE = fileURLToPath(new URL('../../../dist/hosts/local/warehouse/engine/index.js', import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'warehouse-open-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Opened {
  timeZone: string;
  schemas: string[];
  tables: string[];
}

/**
 * One process: openDuckDb(file), `before` run first on a plain DuckDB connection when given; with
 * `keep`, the existing tables read are kept after the file is closed (existing-tables-cache.ts), as a session
 * that changed none of it does.
 */
function open(file: string, before?: string, keep = false): Opened {
  const script = [
    `const { openDuckDb, loadDuckDB, keepExistingTables } = await import(${JSON.stringify(ENGINE)});`,
    before
      ? `{ const api = loadDuckDB(); const i = await api.DuckDBInstance.create(${JSON.stringify(file)}); const c = await i.connect();
         await c.run(${JSON.stringify(before)}); c.closeSync(); i.closeSync(); }`
      : '',
    `const o = await openDuckDb(${JSON.stringify(file)});`,
    `const one = async (sql) => (await o.conn.runAndReadAll(sql)).getRowsJS().map((r) => r[0]);`,
    `const timeZone = (await one("SELECT current_setting('TimeZone')"))[0];`,
    `const schemas = await one("SELECT schema_name FROM duckdb_schemas() WHERE database_name = current_database() AND schema_name IN ('default_schema', 'tester') ORDER BY 1");`,
    `const tables = [...o.tables.values()].map((t) => t.name);`,
    `o.conn.closeSync(); o.instance.closeSync();`,
    keep ? `keepExistingTables(${JSON.stringify(file)}, o.existingTableRows);` : '',
    `console.log(JSON.stringify({ timeZone, schemas, tables }));`,
  ].join('\n');
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, TZ: 'America/New_York', CONNECTOR_AUTH_CACHE_DIR: join(dir, 'cache') },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`open failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as Opened;
}

it('a new file: the session in UTC whatever the machine says, both schemas made', () => {
  expect(open(join(dir, 'new.db'))).toEqual({ timeZone: 'UTC', schemas: ['default_schema', 'tester'], tables: [] });
});

it('a file opened again: still in UTC, its tables read', () => {
  const file = join(dir, 'again.db');
  open(
    file,
    'CREATE SCHEMA default_schema; CREATE SCHEMA tester; CREATE TABLE default_schema.t (id BIGINT PRIMARY KEY)',
  );
  expect(open(file)).toEqual({ timeZone: 'UTC', schemas: ['default_schema', 'tester'], tables: ['t'] });
});

it('a file opened with its existing tables kept: still in UTC, its tables known', () => {
  const file = join(dir, 'kept.db');
  open(
    file,
    'CREATE SCHEMA default_schema; CREATE SCHEMA tester; CREATE TABLE default_schema.t (id BIGINT PRIMARY KEY)',
    true,
  );
  // Kept for the file as it is: the next open uses it, and sends only the time zone.
  expect(keptExistingTables(file, { CONNECTOR_AUTH_CACHE_DIR: join(dir, 'cache') })).toBeDefined();
  expect(open(file)).toEqual({ timeZone: 'UTC', schemas: ['default_schema', 'tester'], tables: ['t'] });
});

it('a file that lacks one of the schemas gets it at open', () => {
  const file = join(dir, 'partial.db');
  expect(open(file, 'CREATE SCHEMA default_schema; CREATE TABLE default_schema.t (id BIGINT PRIMARY KEY)')).toEqual({
    timeZone: 'UTC',
    schemas: ['default_schema', 'tester'],
    tables: ['t'],
  });
});
