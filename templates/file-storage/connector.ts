import type { Readable } from 'node:stream';
import { defineConnector, z } from 'connector-auth';

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
  // The connector's own keys: strings in configuration.json, typed here.
  configuration: settings,
  // schema() gets configuration.json as it is (strings, no defaults): parsed with the same rules.
  schema: (raw) => [{ table: settings.parse(raw).table, primary_key: ['_file', '_line'] }],

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
 * header's columns, plus `_file` and `_line` (the line the record starts on; the header is line 1).
 * Every value is a string: CSV has no types. Returns the number of records.
 */
async function upsertCsv(stream: Readable, file: string, upsert: (row: Record<string, unknown>) => Promise<void>): Promise<number> {
  // Decodes UTF-8 across chunk boundaries: a character split between two chunks stays whole.
  stream.setEncoding('utf8');
  let header: string[] | undefined;
  let count = 0;
  for await (const { fields, line } of csvRecords(stream, file)) {
    if (!header) {
      header = checkHeader(fields, file);
      continue;
    }
    // A record with more or fewer fields is usually a quoting mistake upstream: stop rather than guess.
    if (fields.length !== header.length) throw new Error(`${file} line ${line}: ${fields.length} field(s), but the header has ${header.length}`);
    const row: Record<string, unknown> = { _file: file, _line: line };
    header.forEach((column, i) => (row[column] = fields[i]));
    await upsert(row);
    count++;
  }
  return count;
}

function checkHeader(fields: string[], file: string): string[] {
  const names = fields.map((name, i) => name.trim() || `column_${i + 1}`);
  const seen = new Set<string>();
  for (const name of names) {
    // The warehouse's names are case-insensitive: `Id` and `id` would be one column.
    const folded = name.toLowerCase();
    if (folded === '_file' || folded === '_line') throw new Error(`${file}: the header has a column '${name}', a name this connector uses itself`);
    if (seen.has(folded)) throw new Error(`${file}: the header names the column '${name}' twice`);
    seen.add(folded);
  }
  return names;
}

/**
 * CSV as RFC 4180 writes it: fields separated by commas, records by CRLF, LF or CR; a field in double
 * quotes may hold commas, line breaks and `""` (one quote). A quote inside an unquoted field is kept as
 * it is; text after a closing quote is an error. Blank lines are skipped and a byte order mark dropped.
 * Fed chunk by chunk, so a record may span chunks and a file is never held in memory whole.
 */
async function* csvRecords(chunks: AsyncIterable<string>, file: string): AsyncGenerator<{ fields: string[]; line: number }> {
  let fields: string[] = [];
  let field = '';
  let inQuotes = false;
  let quoteInQuotes = false; // a quote inside quotes: the closing one, or the first of `""`
  let closed = false; // the field's closing quote has been read
  let quotedRecord = false; // `""` alone on a line is a record with one empty value, not a blank line
  let afterCr = false; // the LF of a CRLF ends nothing more
  let line = 1; // the line being read
  let recordLine = 1; // the line the current record starts on
  let start = true;

  const endField = () => {
    fields.push(field);
    field = '';
    closed = false;
  };
  const endRecord = () => {
    endField();
    const record = fields.length === 1 && fields[0] === '' && !quotedRecord ? undefined : { fields, line: recordLine };
    fields = [];
    quotedRecord = false;
    recordLine = ++line;
    return record;
  };

  for await (let text of chunks) {
    if (start && text.length > 0) {
      if (text.startsWith('\uFEFF')) text = text.slice(1);
      start = false;
    }
    for (const c of text) {
      const crlf = afterCr && c === '\n';
      afterCr = false;
      if (quoteInQuotes) {
        quoteInQuotes = false;
        if (c === '"') {
          field += '"';
          continue;
        }
        inQuotes = false;
        closed = true;
      }
      if (inQuotes) {
        if (c === '"') quoteInQuotes = true;
        else {
          if (c === '\n') line++;
          field += c;
        }
      } else if (c === ',') {
        endField();
      } else if (c === '\n' || c === '\r') {
        afterCr = c === '\r';
        if (crlf) continue;
        const record = endRecord();
        if (record) yield record;
      } else if (closed) {
        throw new Error(`${file} line ${line}: text after the closing quote of a field (a quote inside quotes is written "")`);
      } else if (c === '"' && field === '') {
        inQuotes = true;
        quotedRecord = true;
      } else {
        field += c;
      }
    }
  }
  if (quoteInQuotes) inQuotes = false;
  if (inQuotes) throw new Error(`${file} line ${recordLine}: a quoted field is not closed before the end of the file`);
  // The last record, when the file does not end with a line break.
  if (fields.length > 0 || field !== '' || quotedRecord) {
    const record = endRecord();
    if (record) yield record;
  }
}
