import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { expect } from 'vitest';

/**
 * The leak check of issue 22, for any test whose process handled a secret: no 12-character window
 * of the secret's core may appear in what the process printed or left on disk, in any form a
 * secret takes on its way out — raw, JSON-escaped once or twice, HTML/XML-entity-escaped,
 * util.inspect-quoted, hex (plain, upper case, spaced as in `<Buffer …>`) or as a byte array
 * (Buffer's JSON, or util.inspect's spaced and multi-line layout).
 *
 * Windows, not the whole secret: a message cut at 200 characters, a line folded at a newline or a
 * Buffer shown to its 50th byte would still leak most of a secret without ever showing all of it.
 *
 *   await expectNoLeak(SECRET, {
 *     texts: { stdout: run.stdout, stderr: run.stderr },   // what the process printed, by name
 *     files: join(project, 'files'),                      // every file under it, as UTF-8 and latin1
 *     warehouse: join(project, 'files', 'warehouse.db'),  // every value of every table, read through DuckDB
 *   });
 */

/**
 * A secret that holds every character an encoder treats specially: `+ / = & % " \`, a quote of
 * each kind, `<` `>`, a tab and a newline; a random part so no window is a common word.
 */
export const HOSTILE_SECRET = 'sk_Q7+/=&%"\\\'`\t<Zr>\n9vXw2LmPq8KdT4';

export interface LeakSources {
  /** Texts the process produced, by a name the failure message shows (stdout, stderr, a gRPC reply…). */
  texts?: Record<string, string>;
  /** A directory whose files (recursively) must not hold the secret: a project's files/. */
  files?: string;
  /** A DuckDB file whose tables' values must not hold it (its bytes alone can hide a compressed string). */
  warehouse?: string;
}

export interface LeakOptions {
  /** The part of the secret that identifies it (default: all of it), e.g. without a public prefix. */
  core?: string;
  /** Window length (default 12); a core shorter than that is looked for whole. */
  window?: number;
}

/** Asserts that no window of the secret's core appears, in any form, in any of the sources. */
export async function expectNoLeak(secret: string, sources: LeakSources, options: LeakOptions = {}): Promise<void> {
  await expectNoLeaks([secret], sources, options);
}

/** The same for several secrets, the files and the warehouse read once for all of them. */
export async function expectNoLeaks(secrets: string[], sources: LeakSources, options: LeakOptions = {}): Promise<void> {
  const haystacks: [string, string][] = Object.entries(sources.texts ?? {});
  if (sources.files)
    for (const [path, bytes] of await filesUnder(sources.files))
      haystacks.push([path, bytes.toString('utf8')], [`${path} (latin1)`, bytes.toString('latin1')]);
  if (sources.warehouse) haystacks.push(...(await warehouseTexts(sources.warehouse)));
  for (const [index, secret] of secrets.entries()) {
    const found = findLeaks(secret, haystacks, options);
    expect(found, `secret ${index} leaked: ${found.join('; ')}`).toEqual([]);
  }
}

/** Where (source name and form) any window of the core appears; [] when nowhere. For assertions of its own. */
export function findLeaks(secret: string, haystacks: Iterable<[string, string]>, options: LeakOptions = {}): string[] {
  const windows = windowsOf(options.core ?? secret, options.window ?? 12);
  const checks = windows.flatMap((window, index) =>
    leakForms(window).map(([form, test]) => ({ label: `${form} of window ${index}`, test })),
  );
  const found: string[] = [];
  for (const [name, text] of haystacks) {
    const hit = checks.find((check) => check.test(text));
    if (hit) found.push(`${name}: ${hit.label}`);
  }
  return found;
}

function windowsOf(core: string, size: number): string[] {
  const chars = [...core];
  if (chars.length <= size) return [core];
  return Array.from({ length: chars.length - size + 1 }, (_, i) => chars.slice(i, i + size).join(''));
}

type Test = (text: string) => boolean;

/** Each form of one window, as a named test on a text. */
export function leakForms(window: string): [string, Test][] {
  const contains =
    (form: string): Test =>
    (text) =>
      text.includes(form);
  const json = JSON.stringify(window).slice(1, -1);
  const bytes = [...Buffer.from(window, 'utf8')];
  const hex = Buffer.from(window, 'utf8').toString('hex');
  const forms: [string, Test][] = [
    ['raw', contains(window)],
    ['JSON-escaped', contains(json)],
    ['JSON-escaped twice', contains(JSON.stringify(json).slice(1, -1))],
    ...(['"', "'", '`'] as const).map((quote): [string, Test] => [
      `inspect-quoted (${quote})`,
      contains(jsQuoted(window, quote)),
    ]),
    ['util.inspect', contains(inspect(window).slice(1, -1))],
    ...ENTITY_STYLES.map(([style, map]): [string, Test] => [
      `entity-escaped (${style})`,
      contains(entityEscaped(window, map)),
    ]),
    ['hex', (text) => text.toLowerCase().includes(hex)],
    ['spaced hex', (text) => text.toLowerCase().includes(hex.replace(/(..)(?!$)/g, '$1 '))],
    ['byte array', regex(bytes.join(',\\s*'))],
  ];
  return forms;
}

/** Compiled once per form, not per text: a check runs over every text of every run. */
const regex = (source: string): Test => {
  const pattern = new RegExp(source);
  return (text) => pattern.test(text);
};

/** A JavaScript string literal's body with the given quote, escaped as util.inspect and JSON do. */
function jsQuoted(window: string, quote: string): string {
  let out = '';
  for (const char of window) {
    if (char === quote || char === '\\') out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\t') out += '\\t';
    else if (char === '\r') out += '\\r';
    else if (char < ' ') out += `\\x${char.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}`;
    else out += char;
  }
  return out;
}

/** How common escapers write the characters HTML and XML reserve (and XML attributes' white space). */
const ENTITY_STYLES: [string, Record<string, string>][] = [
  ['HTML named', { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }],
  [
    'XML named',
    {
      '&': '&amp;',
      '<': '&lt;',
      '>': '&gt;',
      '"': '&quot;',
      "'": '&apos;',
      '\t': '&#9;',
      '\n': '&#10;',
      '\r': '&#13;',
    },
  ],
  ['numeric', { '&': '&#38;', '<': '&#60;', '>': '&#62;', '"': '&#34;', "'": '&#39;', '\t': '&#9;', '\n': '&#10;' }],
  [
    'hex numeric',
    { '&': '&#x26;', '<': '&#x3C;', '>': '&#x3E;', '"': '&#x22;', "'": '&#x27;', '\t': '&#x9;', '\n': '&#xA;' },
  ],
];

function entityEscaped(window: string, map: Record<string, string>): string {
  return [...window].map((char) => map[char] ?? char).join('');
}

async function filesUnder(dir: string): Promise<[string, Buffer][]> {
  const out: [string, Buffer][] = [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push([path, await readFile(path)]);
  }
  return out;
}

/** Every value of every table of a DuckDB file, one text per table (absent file: nothing). */
async function warehouseTexts(path: string): Promise<[string, string][]> {
  const present = await readFile(path).then(
    () => true,
    () => false,
  );
  if (!present) return [];
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const tables = (
      await connection.runAndReadAll(`SELECT schema_name, table_name FROM duckdb_tables()`)
    ).getRows() as [string, string][];
    const out: [string, string][] = [];
    for (const [schema, table] of tables) {
      const quoted = `"${schema.replaceAll('"', '""')}"."${table.replaceAll('"', '""')}"`;
      const rows = (await connection.runAndReadAll(`SELECT * FROM ${quoted}`)).getRowsJS();
      out.push([
        `warehouse ${schema}.${table}`,
        JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)) +
          rowsAsText(rows),
      ]);
    }
    return out;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** String values as they are (JSON would escape them once more), bytes as UTF-8. */
function rowsAsText(rows: unknown[][]): string {
  return rows
    .flat()
    .map((value) =>
      typeof value === 'string' ? value : value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : '',
    )
    .join('\n');
}
