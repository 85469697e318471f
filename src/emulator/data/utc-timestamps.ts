import type { Connector, Group } from '../../clients/index.js';

/**
 * Section 2.1 writes timestamps as ISO 8601 UTC with fractional seconds. The records a data file or a
 * control route brings may carry an offset (`+02:00`) or whole seconds; the clients accept those,
 * since other services send them, but the emulator serves what the specification shows: each one is
 * stored as the same instant in UTC with milliseconds (`2024-01-15T07:30:00.000Z`), as
 * `Date.prototype.toISOString` writes it.
 */
export function utcTimestamp(value: string): string {
  return new Date(value).toISOString();
}

const optional = (value: string | null | undefined) => (typeof value === 'string' ? utcTimestamp(value) : value);

export function utcGroup<G extends Group>(group: G): G {
  return { ...group, created_at: utcTimestamp(group.created_at) };
}

export function utcConnector<C extends Connector>(connector: C): C {
  const out: C = { ...connector, created_at: utcTimestamp(connector.created_at), status: { ...connector.status } };
  if (connector.succeeded_at !== undefined) out.succeeded_at = optional(connector.succeeded_at);
  if (connector.failed_at !== undefined) out.failed_at = optional(connector.failed_at);
  if (connector.status.rescheduled_for !== undefined)
    out.status.rescheduled_for = optional(connector.status.rescheduled_for);
  return out;
}
