/**
 * The set-based statements that apply a staged run (or an append group) to its
 * table, one per kind of operation: upserts replace whole rows (the last per key
 * wins), updates merge the given columns per key first and then update or insert,
 * deletes and truncates only mark rows `_fivetran_deleted`.
 */
import { DELETED, SYNCED, quoteIdent, tableRef, finalColumns, type TableState } from '../base/index.js';
import { type Plan, planSql } from '../schema/index.js';
import type { StagedColumn } from './staged-column.js';
import { MERGED_REF, MERGED_TABLE, STAGE_REF } from './staging-table.js';

/**
 * The last row per key of `rows` merged into the table: a held key's other columns set in place, a
 * new key's row inserted. `rows` (a table or a subquery) gives the table's `columns` by position,
 * as c0, c1, …, and `order`, the order they were issued in. Named so, no column of the connector's
 * can take the place of `order` (a table's own column named `rowid` hides DuckDB's).
 *
 * Why MERGE and not INSERT OR REPLACE, which deletes each held row and inserts it again: on 100
 * held keys (an author's every `debug`) it takes 2.5 against 4.2 ms of DuckDB's time, and on
 * 122,880 keys into 1,000,000 rows it is as fast or faster. The window stays: a key given twice
 * would otherwise update its row twice, in no defined order (docs/benchmarks.md, tenth pass).
 */
function mergeStatement(state: TableState, columns: string[], rows: string, order: string): string {
  const position = new Map(columns.map((name, i) => [name, `src.c${i}`]));
  const keys = new Set(state.keys);
  const partition = state.keys.map((key) => `c${columns.indexOf(key)}`).join(', ');
  const on = state.keys.map((key) => `tgt.${quoteIdent(key)} = ${position.get(key)}`).join(' AND ');
  const sets = columns.filter((name) => !keys.has(name)).map((name) => `${quoteIdent(name)} = ${position.get(name)}`);
  return (
    `MERGE INTO ${tableRef(state.name)} AS tgt USING (SELECT * FROM ${rows} ` +
    `QUALIFY row_number() OVER (PARTITION BY ${partition} ORDER BY ${order} DESC) = 1) AS src ON ${on} ` +
    `WHEN MATCHED THEN ${sets.length === 0 ? 'DO NOTHING' : `UPDATE SET ${sets.join(', ')}`} ` +
    `WHEN NOT MATCHED THEN INSERT (${columns.map(quoteIdent).join(', ')}) VALUES (${[...position.values()].join(', ')})`
  );
}

/**
 * An append group (append-groups.ts) merged into its table: the group table holds the table's
 * `columns` as c0, c1, … (groupTableStatement); `rowid` is the order its rows were appended in,
 * which is the order they were issued in.
 */
export function mergeGroupStatement(state: TableState, columns: string[], group: string): string {
  return mergeStatement(state, columns, group, 'rowid');
}

/**
 * The statement that (re)makes an append group's table empty, in the table's column types, its
 * columns named by position (see mergeStatement). Recreated: a DELETE keeps the memory.
 */
export function groupTableStatement(state: TableState, columns: string[], group: string): string {
  const select = columns.map((name, i) => `${quoteIdent(name)} AS c${i}`).join(', ');
  return `CREATE OR REPLACE TEMP TABLE ${quoteIdent(group)} AS SELECT ${select} FROM ${tableRef(state.name)} LIMIT 0`;
}

/** An upsert run: its DDL, then the merge of the last row per key (absent columns NULL: whole rows). */
export function upsertStatements(state: TableState, plan: Plan, staged: StagedColumn[]): string[] {
  const columns = [...finalColumns(state, plan.types).map(([name]) => name), SYNCED, DELETED];
  const index = new Map(staged.map((column, i) => [column.name, `s.c${i}`]));
  index.set(SYNCED, 'now()').set(DELETED, 'false');
  const values = columns.map((name, i) => `${index.get(name) ?? 'NULL'} AS c${i}`);
  const select = staged.map((column, i) => `${column.expr(`c${i}`)} AS c${i}`);
  const rows = `(SELECT ${values.join(', ')}, s.__seq FROM (SELECT ${select.join(', ')}, __seq FROM ${STAGE_REF}) AS s)`;
  return [...planSql(state, plan), mergeStatement(state, columns, rows, '__seq')];
}

/**
 * An update run, staged as its key columns then its data columns (each with
 * a presence mask): merged per key into a TEMP table (each column takes its
 * last given value), the DDL, then UPDATE of existing rows and INSERT of the
 * others.
 */
export function updateStatements(state: TableState, plan: Plan, staged: StagedColumn[]): string[] {
  const data = staged.slice(state.keys.length);
  // Merge the run per key first: each column takes its last given value.
  const k = state.keys.length;
  const inner = [
    ...staged.map((staging, i) => `${staging.expr(`c${i}`)} AS c${i}`),
    ...data.map((_, j) => `p${j}`),
    '__seq',
  ];
  const groupKeys = state.keys.map((_, i) => `c${i}`);
  const aggregates = data.map(
    (_, j) =>
      `arg_max_null(c${k + j}, __seq) FILTER (WHERE p${j}) AS c${k + j}, coalesce(bool_or(p${j}), false) AS p${j}`,
  );
  const merge =
    `CREATE OR REPLACE TEMP TABLE ${MERGED_TABLE} AS SELECT ${[...groupKeys, ...aggregates].join(', ')} ` +
    `FROM (SELECT ${inner.join(', ')} FROM ${STAGE_REF}) GROUP BY ${groupKeys.join(', ')}`;
  const target = tableRef(state.name);
  const match = (alias: string): string =>
    state.keys.map((key, i) => `${alias}.${quoteIdent(key)} = m.c${i}`).join(' AND ');
  const sets = data.map(
    (staging, j) =>
      `${quoteIdent(staging.name)} = CASE WHEN m.p${j} THEN m.c${k + j} ELSE tgt.${quoteIdent(staging.name)} END`,
  );
  sets.push(`${quoteIdent(SYNCED)} = now()`, `${quoteIdent(DELETED)} = false`);
  const insertTargets = [...staged.map((staging) => quoteIdent(staging.name)), quoteIdent(SYNCED), quoteIdent(DELETED)];
  const insertValues = [...staged.map((_, i) => `m.c${i}`), 'now()', 'false'];
  return [
    merge,
    ...planSql(state, plan),
    ...(plan.create
      ? []
      : [`UPDATE ${target} AS tgt SET ${sets.join(', ')} FROM ${MERGED_REF} AS m WHERE ${match('tgt')}`]),
    `INSERT INTO ${target} (${insertTargets.join(', ')}) SELECT ${insertValues.join(', ')} FROM ${MERGED_REF} AS m ` +
      `WHERE NOT EXISTS (SELECT 1 FROM ${target} AS x WHERE ${match('x')})`,
  ];
}

/** A delete run, staged as its key columns: marks the matching rows deleted. */
export function deleteStatement(state: TableState, staged: StagedColumn[]): string {
  const select = staged.map((column, i) => `${column.expr(`c${i}`)} AS c${i}`);
  const match = state.keys.map((key, i) => `tgt.${quoteIdent(key)} = m.c${i}`).join(' AND ');
  return (
    `UPDATE ${tableRef(state.name)} AS tgt SET ${quoteIdent(DELETED)} = true, ${quoteIdent(SYNCED)} = now() ` +
    `FROM (SELECT DISTINCT ${select.join(', ')} FROM ${STAGE_REF}) AS m WHERE ${match}`
  );
}

/** A truncate: marks every live row deleted. */
export function truncateStatement(state: TableState): string {
  return (
    `UPDATE ${tableRef(state.name)} SET ${quoteIdent(DELETED)} = true, ${quoteIdent(SYNCED)} = now() ` +
    `WHERE ${quoteIdent(DELETED)} IS NOT TRUE`
  );
}
