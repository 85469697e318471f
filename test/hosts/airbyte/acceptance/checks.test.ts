import { describe, expect, it } from 'vitest';
import type { Message } from '../support.js';
import {
  BASIC_READ_CHECKS,
  checkExceptionProblems,
  checkProblems,
  configMatchesSpec,
  cursorNotBeforeStateProblems,
  DISCOVERY_CHECKS,
  emittedAtIncreaseProblems,
  imageEnvironmentProblems,
  incrementalOnly,
  latestStateInput,
  recordsDiffer,
  sameRecordsProblems,
  sequentialSliceStates,
  SPEC_CHECKS,
  traceOnFailureProblems,
  type ConfiguredStream,
  type Json,
  type StateMessage,
} from './cat.js';

/**
 * The ported CAT checks fail on what CAT refuses: one case per check, so that a check passing on our
 * sources (spec, discovery, basic-read, full-refresh and incremental tests) means something. No
 * connector runs here.
 */

const spec = (properties: Json, extra: Json = {}) => ({ type: 'object', properties, ...extra });
const variant = (name: string, properties: Json = {}, member: Json = { type: 'string', const: name }) => ({
  type: 'object',
  properties: { auth_method: member, ...properties },
});

describe('TestSpec checks refuse what CAT refuses', () => {
  const cases: [string, Json][] = [
    ['test_enum_usage', spec({ mode: { type: 'string', enum: ['a', 'a'] } })],
    ['test_oneof_usage', spec({ auth: { type: 'object', oneOf: [variant('a'), { type: 'object' }] } })],
    [
      'test_oneof_usage',
      spec({ auth: { type: 'object', oneOf: [variant('a'), { type: 'object', properties: { x: {} } }] } }),
    ],
    [
      'test_oneof_usage',
      spec({ auth: { type: 'object', oneOf: [variant('a', {}, { type: 'string', const: 'a', default: 'a' })] } }),
    ],
    ['test_oneof_usage', spec({ auth: { oneOf: [variant('a')] } })],
    ['test_secret_is_properly_marked', spec({ password: { type: 'string' } })],
    [
      'test_secret_is_properly_marked',
      spec({ auth: { type: 'object', oneOf: [variant('a', { token: { type: 'string' } })] } }),
    ],
    ['test_secret_is_properly_marked', spec({ token: { type: 'boolean', airbyte_secret: true } })],
    ['test_property_type_is_not_array', spec({ port: { type: ['integer', 'string'] } })],
    ['test_object_not_empty', spec({ group: { type: 'object' } })],
    ['test_array_type', spec({ list: { type: 'array', items: { type: 'boolean' } } })],
    ['test_forbidden_complex_types', spec({ x: { anyOf: [{ type: 'string' }] } })],
    ['test_duplicate_order', spec({ a: { type: 'string', order: 1 }, b: { type: 'string', order: 1 } })],
    [
      'test_nested_group',
      spec({ auth: { type: 'object', oneOf: [variant('a', { x: { type: 'string', group: 'g' } })] } }),
    ],
    ['test_display_type', spec({ mode: { type: 'string', display_type: 'dropdown' } })],
    ['test_defined_refs_exist_in_json_spec_file', spec({ a: { $ref: '#/definitions/a' } })],
    ['test_additional_properties_is_true', spec({ a: { type: 'string' } }, { additionalProperties: false })],
  ];
  it.each(cases)('%s', (check, specification) => expect(SPEC_CHECKS[check]!(specification)).not.toEqual([]));

  it('test_config_match_spec, test_image_environment_variables', () => {
    const specification = spec({ port: { type: 'string' } }, { required: ['port'] });
    expect(configMatchesSpec({ port: 5432 }, specification)).not.toEqual([]);
    expect(configMatchesSpec({ _ignored: 1, port: '5432' }, specification)).toEqual([]);
    expect(
      imageEnvironmentProblems({
        env: { AIRBYTE_ENTRYPOINT: 'connector-auth airbyte' },
        entrypoint: ['connector-auth'],
      }),
    ).not.toEqual([]);
    expect(imageEnvironmentProblems({ env: {}, entrypoint: ['connector-auth'] })).not.toEqual([]);
  });
});

const message = (type: string, body: Json): Message => ({ type, ...body });
const catalog = (streams: Json[]) => message('CATALOG', { catalog: { streams } });
const stream = (extra: Json = {}) => ({
  name: 'items',
  json_schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { id: {} } },
  supported_sync_modes: ['full_refresh'],
  ...extra,
});

describe('TestConnection and TestDiscovery checks refuse what CAT refuses', () => {
  it('test_check', () => {
    const status = (s: string) => message('CONNECTION_STATUS', { connectionStatus: { status: s } });
    expect(checkProblems([status('FAILED')], 'SUCCEEDED')).not.toEqual([]);
    expect(checkProblems([status('SUCCEEDED'), status('SUCCEEDED')], 'SUCCEEDED')).not.toEqual([]);
    expect(checkExceptionProblems([message('TRACE', { trace: { type: 'ERROR', error: {} } })])).not.toEqual([]);
  });

  const cases: [string, Message[]][] = [
    ['test_discover', [catalog([])]],
    ['test_discover', [catalog([stream()]), catalog([stream()])]],
    ['test_discover', [catalog([stream(), stream()])]],
    ['test_streams_have_valid_json_schemas', [catalog([stream({ json_schema: { type: 'no-such-type' } })])]],
    ['test_defined_cursors_exist_in_schema', [catalog([stream({ default_cursor_field: ['updated_at'] })])]],
    [
      'test_defined_refs_exist_in_schema',
      [catalog([stream({ json_schema: { properties: { id: { $ref: '#/a' } } } })])],
    ],
    ['test_defined_keyword_exist_in_schema', [catalog([stream({ json_schema: { allOf: [], properties: {} } })])]],
    ['test_primary_keys_exist_in_schema', [catalog([stream({ source_defined_primary_key: [['key']] })])]],
    ['test_streams_has_sync_modes', [catalog([stream({ supported_sync_modes: [] })])]],
    ['test_additional_properties_is_true', [catalog([stream({ json_schema: { additionalProperties: false } })])]],
    [
      'test_primary_keys_data_type',
      [
        catalog([
          stream({ source_defined_primary_key: [['id']], json_schema: { properties: { id: { type: 'object' } } } }),
        ]),
      ],
    ],
  ];
  it.each(cases)('%s', (check, messages) => expect(DISCOVERY_CHECKS[check]!(messages)).not.toEqual([]));
});

describe('TestBasicRead checks refuse what CAT refuses', () => {
  const configured = (extra: Json = {}): { streams: ConfiguredStream[] } => ({
    streams: [
      {
        stream: stream({
          json_schema: {
            type: 'object',
            properties: { id: { type: ['null', 'integer'] }, at: { type: ['null', 'string'], format: 'date-time' } },
          },
          source_defined_primary_key: [['id']],
          ...extra,
        }),
        sync_mode: 'full_refresh',
        destination_sync_mode: 'append',
      },
    ],
  });
  const record = (data: Json, name = 'items') => message('RECORD', { record: { stream: name, data, emitted_at: 1 } });
  const status = (s: string) =>
    message('TRACE', {
      trace: { type: 'STREAM_STATUS', stream_status: { stream_descriptor: { name: 'items' }, status: s } },
    });
  const cases: [string, Message[]][] = [
    ['at least one record', []],
    ['_validate_records_structure', [record({ other: 1 })]],
    ['verify_records_schema', [record({ id: 'one' })]],
    ['verify_records_schema', [record({ id: 1, at: 'yesterday' })]],
    ['fail_on_extra_columns', [record({ id: 1, extra: true })]],
    ['_validate_empty_streams', [record({ id: 1 }, 'other')]],
    ['_validate_primary_keys_data_type', [record({ id: null })]],
    ['_validate_primary_keys_data_type', [record({ id: { nested: 1 } })]],
    ['_validate_stream_statuses', [status('STARTED'), status('COMPLETE')]],
    ['_validate_stream_statuses', [status('STARTED'), status('RUNNING'), status('INCOMPLETE')]],
    ['_validate_stream_statuses', []],
    ['_validate_state_messages', []],
    ['_validate_state_messages', [message('STATE', { state: { type: 'LEGACY', data: {} } })]],
    [
      '_validate_state_messages',
      [
        message('STATE', {
          state: { type: 'STREAM', stream: { stream_descriptor: { name: 'items' }, stream_state: {} } },
        }),
      ],
    ],
  ];
  it.each(cases)('%s', (check, messages) => expect(BASIC_READ_CHECKS[check]!(messages, configured())).not.toEqual([]));

  it('test_airbyte_trace_message_on_failure', () => {
    expect(traceOnFailureProblems([message('LOG', { log: { level: 'ERROR', message: 'x' } })])).not.toEqual([]);
  });
});

describe('TestFullRefresh and TestIncremental checks refuse what CAT refuses', () => {
  const record = (data: Json, emitted_at: number) =>
    message('RECORD', { record: { stream: 'items', data, emitted_at } });
  const state = (id: number, recordCount: number): StateMessage => ({
    type: 'STREAM',
    stream: { stream_descriptor: { name: 'items' }, stream_state: { id } },
    sourceStats: { recordCount },
  });

  it('test_sequential_reads', () => {
    expect(emittedAtIncreaseProblems([record({ id: 1 }, 5)], [record({ id: 1 }, 5)])).not.toEqual([]);
    expect(sameRecordsProblems([record({ id: 1 }, 5)], [record({ id: 2 }, 6)])).not.toEqual([]);
  });

  it('configured_catalog_for_incremental: an incremental stream without a cursor field fails', () => {
    const { problems } = incrementalOnly({
      streams: [
        {
          stream: stream({ supported_sync_modes: ['incremental'] }),
          sync_mode: 'full_refresh',
          destination_sync_mode: 'append',
        },
      ],
    });
    expect(problems).not.toEqual([]);
  });

  it('test_two_sequential_reads: the last state of each stream; the same records twice fail', () => {
    expect(
      latestStateInput([message('STATE', { state: state(10, 10) }), message('STATE', { state: state(20, 10) })]),
    ).toEqual([{ type: 'STREAM', stream: { stream_descriptor: { name: 'items' }, stream_state: { id: 20 } } }]);
    expect(recordsDiffer([record({ id: 1 }, 1)], [record({ id: 1 }, 2)])).toBe(false);
  });

  it("test_read_sequential_slices' choice: duplicates merged, the first and last left out; the expected counts", () => {
    const picked = sequentialSliceStates([state(10, 10), state(10, 0), state(20, 10), state(25, 5)]);
    expect(picked.map((p) => [p.state.stream!.stream_state.id, p.expected])).toEqual([[20, 5]]);
    expect(sequentialSliceStates([state(10, 10), state(20, 5)]).map((p) => p.expected)).toEqual([0]);
  });

  it('earlier versions: a record before the state cursor fails; a state without the cursor is not testable', () => {
    const configured: ConfiguredStream = {
      stream: stream(),
      sync_mode: 'incremental',
      destination_sync_mode: 'append',
      cursor_field: ['id'],
    };
    expect(cursorNotBeforeStateProblems([record({ id: 3 }, 1)], configured, { id: 20 })).not.toEqual([]);
    expect(cursorNotBeforeStateProblems([record({ id: 3 }, 1)], configured, { cursor: '20' })).toBeUndefined();
  });
});
