import { describe, expect, it } from 'vitest';
import { airbyteStream, columnSchema } from '../../../src/hosts/airbyte/index.js';
import { lineProblems } from './support.js';

/** DISCOVER's streams from schema(): sync modes, primary keys, column types. */
describe('airbyteStream', () => {
  it('a table that says incremental: false is offered as a full refresh only, with no cursor of its own', () => {
    const stream = airbyteStream({ table: 'groups', primary_key: ['id'], incremental: false });
    expect(stream).toEqual({
      name: 'groups',
      json_schema: expect.any(Object),
      supported_sync_modes: ['full_refresh'],
      source_defined_primary_key: [['id']],
    });
    expect(lineProblems(JSON.stringify({ type: 'CATALOG', catalog: { streams: [stream] } }))).toEqual([]);
  });

  it('a table that names its cursor gives it as default_cursor_field (which acceptance tests need of an incremental stream), typed where declared', () => {
    const stream = airbyteStream({
      table: 'orders',
      primary_key: ['id'],
      cursor: 'updated_at',
      columns: { updated_at: 'UTC_DATETIME' },
    });
    expect(stream).toMatchObject({
      supported_sync_modes: ['full_refresh', 'incremental'],
      source_defined_cursor: true,
      default_cursor_field: ['updated_at'],
    });
    expect((stream.json_schema.properties as Record<string, object>).updated_at).toMatchObject({ format: 'date-time' });
    expect(airbyteStream({ table: 'ids', cursor: 'seq' }).json_schema.properties).toHaveProperty('seq');
    expect(airbyteStream({ table: 'full', cursor: 'seq', incremental: false })).not.toHaveProperty(
      'default_cursor_field',
    );
    expect(lineProblems(JSON.stringify({ type: 'CATALOG', catalog: { streams: [stream] } }))).toEqual([]);
  });

  it('a composite key is one path per column; a table without a key has none', () => {
    expect(airbyteStream({ table: 'rows', primary_key: ['_file', '_record'] }).source_defined_primary_key).toEqual([
      ['_file'],
      ['_record'],
    ]);
    expect(airbyteStream({ table: 'events' })).not.toHaveProperty('source_defined_primary_key');
  });

  it("maps the SDK's column types to Airbyte's, every column nullable", () => {
    const stream = airbyteStream({
      table: 't',
      columns: {
        a: 'BOOLEAN',
        b: 'LONG',
        c: 'DOUBLE',
        d: { type: 'DECIMAL', precision: 10, scale: 2 },
        e: 'NAIVE_DATE',
        f: 'UTC_DATETIME',
        g: 'NAIVE_DATETIME',
        h: 'BINARY',
        i: 'JSON',
        j: 'STRING',
      },
    });
    expect(stream.json_schema.properties).toEqual({
      a: { type: ['null', 'boolean'] },
      b: { type: ['null', 'integer'] },
      c: { type: ['null', 'number'] },
      d: { type: ['null', 'number'] },
      e: { type: ['null', 'string'], format: 'date' },
      f: { type: ['null', 'string'], format: 'date-time', airbyte_type: 'timestamp_with_timezone' },
      g: { type: ['null', 'string'], format: 'date-time', airbyte_type: 'timestamp_without_timezone' },
      h: { type: ['null', 'string'], contentEncoding: 'base64' },
      i: {},
      j: { type: ['null', 'string'] },
      _ab_cdc_deleted_at: { type: ['null', 'string'], format: 'date-time', airbyte_type: 'timestamp_with_timezone' },
    });
    expect(columnSchema('XML')).toEqual({ type: ['null', 'string'] });
  });
});
