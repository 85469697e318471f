import { defineConnector, z, type ColumnType } from 'connector-auth';

/**
 * A PostgreSQL connector: an incremental sync of one table by a cursor column (`updated_at`). Before
 * update() runs, connector-auth has already read the connection keys from configuration.json,
 * connected to `host` with TLS per `sslmode` (the server's certificate checked against
 * `tls_ca_certificate`), through the SSH tunnel when `ssh_tunnel_host` is set, logged in as `user`
 * and run `SELECT 1`: a wrong password stopped the run with exit code 3 and one line naming the key.
 *
 * Each batch is the next `batch_size` rows in `(cursor_column, primary_key)` order, after the last
 * row of the previous one; the position of that row is saved after every batch, so an interrupted
 * sync resumes where it stopped and the next sync reads only rows changed since. Adapt the SELECT to
 * your table (columns, filters), not the paging.
 */

const settings = z.object({
  // `schema.table`, or `table` alone (the search_path decides the schema).
  table: z.string().default('public.orders').refine(isTableName, {
    message: 'must be a table name, `schema.table` or `table`: at most 63 bytes per part, no empty part, no NUL',
  }),
  // Must only grow when a row changes (e.g. set by a trigger): the sync reads rows whose value is past the saved one.
  cursor_column: z.string().default('updated_at').refine(isColumnName, { message: 'must be a column name: 1 to 63 bytes, no NUL' }),
  // One column, or several comma-separated (`tenant_id,id`): ties on the cursor are ordered by it.
  primary_key: z.string().default('id').refine((v) => columnList(v).every(isColumnName), {
    message: 'must be one column name, or several separated by commas: 1 to 63 bytes each, no NUL',
  }),
  batch_size: z
    .string()
    .default('1000')
    .refine((v) => /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 100_000, { message: 'must be a whole number from 1 to 100000' })
    .transform(Number),
});

// The columns of the sample table (sample-data.sql): declare your table's, as its SELECT returns them
// (`select t.*`). A declared column is typed downstream (numeric stays exact as DECIMAL), and Airbyte's
// acceptance tests refuse a record column the stream does not declare. The primary key and cursor
// columns are declared by name in any case.
const COLUMNS: Record<string, ColumnType> = {
  id: 'LONG',
  status: 'STRING',
  amount: { type: 'DECIMAL', precision: 10, scale: 2 },
  updated_at: 'UTC_DATETIME',
};

// Added to each SELECTed row, kept in the state, never written to the warehouse.
const CURSOR = '_connector_auth_cursor';
const KEY = '_connector_auth_key';

export default defineConnector({
  source: 'postgres',
  // The auth methods this connector offers (the Fivetran form, the Airbyte spec and `validate` offer
  // only these): a password, a client certificate, Kerberos, and the identity of a cloud machine for a
  // managed database. Keep those your database uses; docs/sources/postgres.md lists the others.
  auth: ['password', 'mtls', 'kerberos', 'aws_access_key', 'aws_instance_profile', 'gcp_metadata', 'azure_managed_identity'],
  // The connector's own keys: strings in configuration.json, typed here.
  configuration: settings,
  // schema() gets the configuration update() gets: these keys typed, defaults applied.
  // `cursor` names the column each sync moves forward by (Airbyte shows it as the stream's cursor).
  schema: (configuration) => [
    {
      table: destinationTable(configuration.table),
      primary_key: columnList(configuration.primary_key),
      cursor: configuration.cursor_column,
      columns: COLUMNS,
    },
  ],

  async update({ configuration, state, source, op, log }) {
    const key = columnList(configuration.primary_key);
    const destination = destinationTable(configuration.table);
    // Identifiers cannot be parameters: they are quoted instead, so a name is only ever a name.
    const from = configuration.table.split('.').map(quoteIdentifier).join('.');
    const cursor = `t.${quoteIdentifier(configuration.cursor_column)}`;
    const keys = key.map((k) => `t.${quoteIdentifier(k)}`);

    // A position saved for another table, cursor or key means nothing here: start from the beginning.
    let position = readPosition(state, configuration);
    if (!position && state.cursor !== undefined) log.info(`the saved position is for another table, cursor or primary key; syncing ${configuration.table} from the start`);

    let synced = 0;
    for (;;) {
      // Values go in as $1, $2…; PostgreSQL gives each the type of the column it is compared with.
      // ::text keeps the position exact (a JavaScript Date would drop the microseconds).
      const values: unknown[] = position ? [position.cursor, ...position.key] : [];
      const after = position ? `and (${[cursor, ...keys].join(', ')}) > (${values.map((_, i) => `$${i + 1}`).join(', ')})` : '';
      values.push(configuration.batch_size);
      const rows = await source.query(
        `select t.*, ${cursor}::text as ${CURSOR}, array[${keys.map((k) => `${k}::text`).join(', ')}] as ${KEY}
           from ${from} as t
          where ${cursor} is not null ${after}
          order by ${[cursor, ...keys].join(', ')}
          limit $${values.length}`,
        values,
      );
      for (const { [CURSOR]: _cursor, [KEY]: _key, ...row } of rows) await op.upsert(destination, row);
      synced += rows.length;
      const last = rows.at(-1);
      if (!last) break;
      position = { cursor: String(last[CURSOR]), key: last[KEY] as string[] };
      // Saving the position after every batch lets an interrupted sync resume where it stopped.
      await op.checkpoint({ table: configuration.table, cursor_column: configuration.cursor_column, primary_key: configuration.primary_key, cursor: position.cursor, key: position.key });
      if (rows.length < configuration.batch_size) break;
    }
    log.info(`synced ${synced} row(s) of ${configuration.table} into ${destination}${position ? `; ${configuration.cursor_column} is now ${position.cursor}` : ''}`);
  },
});

interface Position {
  cursor: string;
  key: string[];
}

/** The position saved by the last checkpoint, if it was saved for this table, cursor and key. */
function readPosition(state: Record<string, unknown>, c: { table: string; cursor_column: string; primary_key: string }): Position | undefined {
  const { table, cursor_column, primary_key, cursor, key } = state;
  if (table !== c.table || cursor_column !== c.cursor_column || primary_key !== c.primary_key || typeof cursor !== 'string') return undefined;
  if (!Array.isArray(key) || key.length !== columnList(c.primary_key).length || !key.every((k) => typeof k === 'string')) return undefined;
  return { cursor, key };
}

/** `"name"`, with any `"` inside doubled: PostgreSQL reads it back as exactly `name`. */
function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Longer names would be cut to 63 bytes by PostgreSQL without a word: refused instead. */
function isColumnName(name: string): boolean {
  return name.length > 0 && Buffer.byteLength(name) <= 63 && !name.includes('\0');
}

function isTableName(name: string): boolean {
  const parts = name.split('.');
  return parts.length <= 2 && parts.every(isColumnName);
}

function columnList(value: string): string[] {
  return value.split(',').map((c) => c.trim());
}

/** `public.orders` lands in the warehouse as `orders`. */
function destinationTable(table: string): string {
  return table.split('.').at(-1)!;
}
