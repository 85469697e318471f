/**
 * The schema a run needs before it is written: the table created, columns
 * added, inferred columns widened. Changes are counted as if the run's rows
 * were written one at a time, so the count does not depend on the batch size.
 */
import { type Run, type TableState, naturalType, widen } from '../base/index.js';

/** What one run does to a table's schema. */
export interface Plan {
  create: boolean;
  changes: number;
  /** final type of every column that has a non-null value in the run */
  types: Map<string, string>;
  /** columns given in the run (own property, null included), first-seen order */
  present: string[];
}

/**
 * The schema a run needs. Counts changes as if its rows were written one at
 * a time: creating the table (with the first row's columns), each column
 * first seen later, each widening.
 */
export function planRun(state: TableState, run: Run): Plan {
  const create = !state.exists;
  let changes = create ? 1 : 0;
  const types = new Map<string, string>();
  const present: string[] = [];
  for (const [name, values] of run.columns) {
    present.push(name);
    const n = values.length;
    let i = 0;
    while (i < n && (values[i] === undefined || values[i] === null)) i++;
    if (i === n) continue;
    const column = state.columns.get(name);
    let type: string;
    let widenable: boolean;
    if (column !== undefined && column.type !== undefined) {
      type = column.type;
      widenable = !column.declared;
    } else {
      type = naturalType(values[i]);
      widenable = true;
      if (!(create && i === 0)) changes++;
      i++;
    }
    if (widenable && type !== 'VARCHAR') {
      for (; i < n; i++) {
        const value = values[i];
        if (value === undefined || value === null) continue;
        const wider = widen(type, value);
        if (wider !== type) {
          type = wider;
          changes++;
        }
      }
    }
    types.set(name, type);
  }
  return { create, changes, types, present };
}

/** Records a written plan in the table's state (the caller counts its changes). */
export function commitPlan(state: TableState, plan: Plan): void {
  for (const [name, type] of plan.types) {
    const column = state.columns.get(name);
    if (column === undefined) state.columns.set(name, { name, type, declared: false, exists: true });
    else Object.assign(column, { type, exists: true });
  }
  if (plan.create) {
    for (const column of state.columns.values()) if (column.type !== undefined) column.exists = true;
    state.exists = true;
  }
}
