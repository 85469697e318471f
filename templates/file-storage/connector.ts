import type { Readable } from 'node:stream';
import { defineConnector, z } from 'connector-auth';
import { CsvError, parse } from 'connector-auth/csv';

/**
 * An S3 connector: every CSV object under `prefix`, one row per CSV record. Before update() runs,
 * connector-auth has already read the access key from configuration.json, built an S3 client that
 * signs each request with it (Signature Version 4: the secret never crosses the network) and listed
 * one object under `prefix`: a wrong key or secret stopped the run with exit code 3 and one line
 * naming the key to fix, a missing bucket with exit code 4.
 *
 * Objects are read in key order, and each sync starts after the last key the previous one finished:
 * name files so that new ones sort last (`exports/2024-05-01.csv`, not `exports/may-1.csv`). A row
 * is keyed by its file and line, so reading a file again replaces its rows rather than adding more.
 */

const settings = z.object({
  // The warehouse table every CSV row lands in.
  table: z.string().default('rows').refine((v) => v.trim().length > 0 && !v.includes('\0'), { message: 'must be a table name' }),
});

export default defineConnector({
  source: 's3',
  // The auth methods this connector offers (the Fivetran form, the Airbyte spec and `validate` offer
  // only these): AWS keys, or the role of the machine, task or workload it runs on.
  auth: ['aws_access_key', 'aws_web_identity', 'aws_instance_profile', 'aws_container_credentials'],
  // The connector's own keys: strings in configuration.json, typed here.
  configuration: settings,
  // schema() gets the configuration update() gets: `table` typed, its default applied.
  // Files are read in key order: `_file` is the column a sync moves forward by.
  schema: (configuration) => [{ table: configuration.table, primary_key: ['_file', '_record'], cursor: '_file' }],

  async update({ configuration, state, source, op, log }) {
    // A key saved for another bucket or prefix means nothing here: start from the beginning.
    const samePlace = state.bucket === source.bucket && state.prefix === source.prefix;
    let last = samePlace && typeof state.last_key === 'string' ? state.last_key : undefined;
    if (!samePlace && state.last_key !== undefined) log.info(`the saved position is for another bucket or prefix; reading ${source.target} from the start`);
    let files = 0;
    let rows = 0;
    // list() pages through every key under `prefix`, in key order; startAfter resumes after `last`.
    for await (const object of source.list(last ? { startAfter: last } : {})) {
      if (!object.key.toLowerCase().endsWith('.csv')) continue;
      // A stream, not readFile(): a large export is never held in memory whole.
      const stream = await source.createReadStream(object.key);
      rows += await upsertCsv(stream, object.key, (row) => op.upsert(configuration.table, row));
      files++;
      last = object.key;
      // After each file: an interrupted sync starts again at the file it was reading.
      await op.checkpoint({ bucket: source.bucket, prefix: source.prefix, last_key: last });
    }
    log.info(`synced ${rows} row(s) from ${files} new CSV file(s) into ${configuration.table}${last ? `; last file ${last}` : ''}`);
  },
});

/**
 * Reads one CSV file (UTF-8, first record the header) and upserts each record as an object of the
 * header's columns, plus `_file` and `_record` (its place in the file: 1 for the first after the header).
 * Every value is a string: CSV has no types. Returns the number of records.
 *
 * The parser is csv-parse (`connector-auth/csv`), fed the object's stream: a record may span chunks
 * and a file is never held in memory whole. RFC 4180 as files are written in practice: quoted fields
 * may hold commas, line breaks and `""`; records end at CRLF, LF or CR, mixed in one file; a byte order
 * mark is dropped, blank lines skipped, a stray quote inside an unquoted field kept as it is. A record
 * with more or fewer fields than the header, text after a closing quote or a quote never closed stops
 * the sync (exit 1) with the file and line: usually a quoting mistake upstream, better fixed than guessed.
 */
async function upsertCsv(stream: Readable, file: string, upsert: (row: Record<string, unknown>) => Promise<void>): Promise<number> {
  const parser = stream.pipe(
    parse({ bom: true, skip_empty_lines: true, relax_quotes: true, record_delimiter: ['\r\n', '\n', '\r'] }),
  );
  // A stream error (the connection lost mid-file) reaches the loop below through the parser.
  stream.once('error', (error) => parser.destroy(error));
  let header: string[] | undefined;
  let count = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (!header) {
        header = checkHeader(record, file);
        continue;
      }
      const row: Record<string, unknown> = { _file: file, _record: count + 1 };
      header.forEach((column, i) => (row[column] = record[i]));
      await upsert(row);
      count++;
    }
  } catch (error) {
    // csv-parse's message names the line: "Invalid Record Length: expect 3, got 4 on line 3".
    if (error instanceof CsvError) throw new Error(`${file}: ${error.message}`, { cause: error });
    throw error;
  }
  return count;
}

function checkHeader(fields: string[], file: string): string[] {
  const names = fields.map((name, i) => name.trim() || `column_${i + 1}`);
  const seen = new Set<string>();
  for (const name of names) {
    // The warehouse's names are case-insensitive: `Id` and `id` would be one column.
    const folded = name.toLowerCase();
    if (folded === '_file' || folded === '_record') throw new Error(`${file}: the header has a column '${name}', a name this connector uses itself`);
    if (seen.has(folded)) throw new Error(`${file}: the header names the column '${name}' twice`);
    seen.add(folded);
  }
  return names;
}
