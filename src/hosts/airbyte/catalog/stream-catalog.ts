import type { ColumnType, TableDefinition } from '../../../connector/index.js';
import type { AirbyteStream, JsonObject } from '../messages/index.js';

/**
 * DISCOVER: one stream per table of the connector's schema().
 *
 * - `json_schema`: the declared columns typed (below), the primary key's columns (untyped when not
 *   declared: the connector did not say), `_ab_cdc_deleted_at` (how a delete reaches Airbyte,
 *   record-destination.ts), and `additionalProperties: true`: a column the connector writes without
 *   declaring it still reaches Airbyte, which stores it untyped.
 * - `supported_sync_modes`: `incremental` too unless the table says `incremental: false`. Whether a
 *   connector reads only what changed cannot be seen from outside update(); every connector gets its
 *   last checkpoint as `state`, so a table is taken as incremental unless it says otherwise. The
 *   cursor is the connector's own (`source_defined_cursor`: no cursor field for the user to pick),
 *   named as `default_cursor_field` when the table says which column it is (`cursor`), as Airbyte's
 *   acceptance tests require of an incremental stream; such a stream is resumable.
 * - `source_defined_primary_key`: the table's primary key, one path per column.
 */
export const DELETED_AT = '_ab_cdc_deleted_at';

export function airbyteStream(table: TableDefinition): AirbyteStream {
  const properties: JsonObject = {};
  for (const column of [...(table.primary_key ?? []), ...(table.cursor ? [table.cursor] : [])]) properties[column] = {};
  for (const [column, type] of Object.entries(table.columns ?? {})) properties[column] = columnSchema(type);
  properties[DELETED_AT] = { type: ['null', 'string'], format: 'date-time', airbyte_type: 'timestamp_with_timezone' };
  const incremental = table.incremental !== false;
  return {
    name: table.table,
    json_schema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: true,
      properties,
    },
    supported_sync_modes: incremental ? ['full_refresh', 'incremental'] : ['full_refresh'],
    ...(incremental ? { source_defined_cursor: true, is_resumable: true } : {}),
    ...(incremental && table.cursor ? { default_cursor_field: [table.cursor] } : {}),
    ...(table.primary_key?.length ? { source_defined_primary_key: table.primary_key.map((column) => [column]) } : {}),
  };
}

/** The Python SDK's column types as Airbyte's v0 type annotations (`format`, `airbyte_type`); every column may be null. */
export function columnSchema(type: ColumnType): JsonObject {
  if (typeof type === 'object') return { type: ['null', 'number'] };
  switch (type) {
    case 'BOOLEAN':
      return { type: ['null', 'boolean'] };
    case 'SHORT':
    case 'INT':
    case 'LONG':
      return { type: ['null', 'integer'] };
    case 'FLOAT':
    case 'DOUBLE':
      return { type: ['null', 'number'] };
    case 'NAIVE_DATE':
      return { type: ['null', 'string'], format: 'date' };
    case 'NAIVE_DATETIME':
      return { type: ['null', 'string'], format: 'date-time', airbyte_type: 'timestamp_without_timezone' };
    case 'UTC_DATETIME':
      return { type: ['null', 'string'], format: 'date-time', airbyte_type: 'timestamp_with_timezone' };
    case 'BINARY':
      return { type: ['null', 'string'], contentEncoding: 'base64' };
    case 'JSON':
      return {};
    case 'XML':
    case 'STRING':
      return { type: ['null', 'string'] };
  }
}
