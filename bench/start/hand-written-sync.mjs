// The job `debug` of the rest-api template does, written by hand with nothing but Node and DuckDB:
// the engine's floor for bench/start/debug-template.ts. GET /health (the probe), GET /items, one
// INSERT OR REPLACE of the page into a table with the same columns and key, the state written
// atomically, a checkpoint, the file closed. No configuration schema, no secrets, no connector file,
// no summary: what is left is what any program doing this job with DuckDB pays.
//
// DuckDB's JavaScript is the build's one-file copy that `debug` loads (its fastest way in).
//
//   node bench/start/hand-written-sync.mjs <api url> <token> <warehouse file> <state file>
import { renameSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const [url, token, warehouse, stateFile] = process.argv.slice(2);
const DUCKDB = fileURLToPath(new URL('../../dist/bundle/duckdb-node-api.cjs', import.meta.url));

/** One GET with the bearer token, its JSON body parsed; anything but 200 throws. */
function getJson(path) {
  return new Promise((resolve, reject) => {
    get(`${url}/${path}`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () =>
        res.statusCode === 200 ? resolve(JSON.parse(body)) : reject(new Error(`GET ${path}: HTTP ${res.statusCode}`)),
      );
    }).once('error', reject);
  });
}

await getJson('health');
const { items } = await getJson('items');

const duckdb = createRequire(import.meta.url)(DUCKDB);
const instance = await duckdb.DuckDBInstance.create(warehouse, { threads: '1' });
const conn = await instance.connect();
await conn.run(
  'CREATE TABLE IF NOT EXISTS items (id BIGINT PRIMARY KEY, name VARCHAR, price DOUBLE, active BOOLEAN, ' +
    '_fivetran_synced TIMESTAMPTZ, _fivetran_deleted BOOLEAN DEFAULT false)',
);
const synced = new Date().toISOString();
const rows = items.map(
  (_, i) => `($${i * 5 + 1}, $${i * 5 + 2}, $${i * 5 + 3}, $${i * 5 + 4}, $${i * 5 + 5}::TIMESTAMPTZ, false)`,
);
await conn.run(
  `INSERT OR REPLACE INTO items VALUES ${rows.join(', ')}`,
  items.flatMap((item) => [item.id, item.name, item.price, item.active, synced]),
);
writeFileSync(`${stateFile}.tmp`, JSON.stringify({ synced_at: synced }));
renameSync(`${stateFile}.tmp`, stateFile);
await conn.run('CHECKPOINT');
conn.closeSync();
instance.closeSync();
