/**
 * Reading a table back (for tests and summaries), with values in the forms a
 * connector wrote them: JSON parsed, integers that fit a JS number as numbers.
 */
import {
  type Api,
  type Connection,
  type ResultReader,
  quoteIdent,
  tableRef,
  type TableState,
  sanitize,
  tableLabel,
  type Row,
} from '../base/index.js';

/** The rows of an existing table, ordered by primary key. */
export async function readRows(api: Api, conn: Connection, state: TableState): Promise<Row[]> {
  const order = state.keys.map(quoteIdent).join(', ');
  let reader: ResultReader;
  try {
    reader = await conn.runAndReadAll(`SELECT * FROM ${tableRef(state.name)} ORDER BY ${order}`);
  } catch (error) {
    throw sanitize(error, `reading ${tableLabel(state.name)}`);
  }
  const types = reader.columnTypes();
  const names = reader.columnNames();
  const rows = reader.getRowObjectsJS() as Row[];
  const typeId = api.DuckDBTypeId;
  for (let c = 0; c < names.length; c++) {
    const name = names[c] as string;
    const type = types[c];
    if (type === undefined) continue;
    if (type.alias === 'JSON') {
      for (const row of rows) if (typeof row[name] === 'string') row[name] = JSON.parse(row[name] as string);
    } else if (type.typeId === typeId.BIGINT || type.typeId === typeId.HUGEINT) {
      for (const row of rows) {
        const value = row[name];
        if (typeof value === 'bigint' && value >= -9007199254740991n && value <= 9007199254740991n) {
          row[name] = Number(value);
        }
      }
    }
  }
  return rows;
}
