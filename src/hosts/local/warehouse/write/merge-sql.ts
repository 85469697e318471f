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
 * An append group (append-groups.ts) merged into its table: the last row per key (`rowid` is the
 * order the rows were appended in, which is the order they were issued in), its other columns set
 * on a held key, the whole row inserted on a new one. `columns`: the table's columns, which the
 * group table has in the same order.
 *
 * Why MERGE and not INSERT OR REPLACE, which deletes each held row and inserts it again: on 100
 * held keys (an author's every `debug`) it takes 2.5 against 4.2 ms of DuckDB's time and leaves less
 * for the checkpoint at close, and on 122,880 held keys of 1,000,000 it is as fast (200–224 against
 * 228–236 ms). The window stays: a key given twice would otherwise update its row twice, in no
 * defined order (docs/benchmarks.md, tenth pass).
 */
export function mergeGroupStatement(state: TableState, columns: string[], group: string): string {
  const keys = new Set(state.keys);
  const partition = state.keys.map(quoteIdent).join(', ');
  const on = state.keys.map((key) => `tgt.${quoteIdent(key)} = src.${quoteIdent(key)}`).join(' AND ');
  const sets = columns.filter((name) => !keys.has(name)).map((name) => `${quoteIdent(name)} = src.${quoteIdent(name)}`);
  const all = columns.map(quoteIdent);
  return (
    `MERGE INTO ${tableRef(state.name)} AS tgt USING (SELECT * FROM ${group} ` +
    `QUALIFY row_number() OVER (PARTITION BY ${partition} ORDER BY rowid DESC) = 1) AS src ON ${on} ` +
    `WHEN MATCHED THEN ${sets.length === 0 ? 'DO NOTHING' : `UPDATE SET ${sets.join(', ')}`} ` +
    `WHEN NOT MATCHED THEN INSERT (${all.join(', ')}) VALUES (${all.map((name) => `src.${name}`).join(', ')})`
  );
}

/** An upsert run: its DDL, then INSERT OR REPLACE of the last row per key. */
export function upsertStatements(state: TableState, plan: Plan, staged: StagedColumn[]): string[] {
  const final = finalColumns(state, plan.types);
  const index = new Map(staged.map((column, i) => [column.name, i]));
  const targets = final.map(([name]) => quoteIdent(name));
  const values = final.map(([name]) => (index.has(name) ? `s.c${index.get(name)}` : 'NULL'));
  const partition = state.keys.map((key) => `s.c${index.get(key)}`).join(', ');
  const select = staged.map((column, i) => `${column.expr(`c${i}`)} AS c${i}`);
  const insert =
    `INSERT OR REPLACE INTO ${tableRef(state.name)} (${targets.join(', ')}, ${quoteIdent(SYNCED)}, ${quoteIdent(DELETED)}) ` +
    `SELECT ${values.join(', ')}, now(), false FROM (SELECT ${select.join(', ')}, __seq FROM ${STAGE_REF}) AS s ` +
    `QUALIFY row_number() OVER (PARTITION BY ${partition} ORDER BY s.__seq DESC) = 1`;
  return [...planSql(state, plan), insert];
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
