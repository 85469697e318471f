import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import type { Message } from '../support.js';

/**
 * What Airbyte's Connector Acceptance Tests (CAT) assert, with their default settings, ported from
 * the facts of airbytehq/airbyte `airbyte-integrations/bases/connector-acceptance-test/`
 * (`connector_acceptance_test/tests/test_core.py`, `test_full_refresh.py`, `test_incremental.py`,
 * `utils/common.py`, `utils/asserts.py`, `utils/json_schema_helper.py`, `config.py`). Each check
 * returns the problems it found, [] when CAT's test would pass: the test files run them on the
 * messages the built CLI printed, and checks.test.ts shows each one failing on what CAT refuses.
 * Check names are CAT's test names; docs/hosts/airbyte.md lists which run where and which are not
 * ported (and why).
 */

/** JSON of any shape, walked by key. */
export type Json = any;

/** test_core.py's `secret_property_names`: a property with one of these names must be airbyte_secret. */
export const SECRET_PROPERTY_NAMES = [
  'client_token',
  'access_token',
  'api_token',
  'token',
  'secret',
  'client_secret',
  'password',
  'key',
  'service_account_info',
  'service_account',
  'tenant_id',
  'certificate',
  'jwt',
  'credentials',
  'app_id',
  'appid',
  'refresh_token',
];

/** Every (path, key, value, parent) of a JSON tree, as dpath's `**` search walks it. */
function* walk(node: Json, path: string[] = []): Generator<{ path: string[]; key: string; value: Json; parent: Json }> {
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    yield { path: [...path, key], key, value, parent: node };
    yield* walk(value, [...path, key]);
  }
}

/** The node at a path of keys. */
function at(node: Json, path: string[]): Json {
  return path.reduce((n, k) => (n === null || typeof n !== 'object' ? undefined : n[k]), node);
}

/** find_all_values_for_key_in_schema: every value under this key, at any depth. */
function valuesOf(node: Json, key: string): Json[] {
  return [...walk(node)].filter((e) => e.key === key).map((e) => e.value);
}

// --- TestSpec ---------------------------------------------------------------------------------

const RESERVED = new Set(['anyOf', 'oneOf', 'allOf', 'not', 'properties', 'items', 'type', 'prefixItems']);
const FORBIDDEN_SPEC_KEYWORDS = [
  'not',
  'anyOf',
  'patternProperties',
  'prefixItems',
  'allOf',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependentRequired',
];

/** TestSpec's checks of a connectionSpecification, by CAT test name. */
export const SPEC_CHECKS: Record<string, (specification: Json) => string[]> = {
  test_enum_usage(specification) {
    return valuesOf(specification, 'enum')
      .filter((list) => Array.isArray(list) && new Set(list).size !== list.length)
      .map((list) => `enum with duplicate values: ${JSON.stringify(list)}`);
  },

  // The rules of the version that refuses any `default` on the const property (later versions accept
  // one equal to the const): the spec passes both.
  test_oneof_usage(specification) {
    const problems: string[] = [];
    for (const { path, key, value, parent } of walk(specification)) {
      if (key !== 'oneOf' && key !== 'anyOf') continue;
      const where = path.join('.');
      if (parent.type !== 'object') problems.push(`${where}: the object holding it is not type: object`);
      const variants = value as Json[];
      if (!variants.every((v) => v && typeof v.properties === 'object')) {
        problems.push(`${where}: a variant has no properties`);
        continue;
      }
      const names = variants.map((v) => new Set(Object.keys(v.properties)));
      const common = [...names[0]!].filter((n) => names.every((set) => set.has(n)));
      if (common.length === 0) problems.push(`${where}: no property common to every variant`);
      const constant = common.filter((n) => variants.every((v) => 'const' in v.properties[n]));
      if (constant.length !== 1) {
        problems.push(`${where}: ${constant.length} common properties with const, not exactly one`);
        continue;
      }
      variants.forEach((v, i) => {
        const property = v.properties[constant[0]!];
        if ('default' in property) problems.push(`${where}[${i}].${constant[0]}: default beside const`);
        if ('enum' in property) problems.push(`${where}[${i}].${constant[0]}: enum beside const`);
      });
    }
    return problems;
  },

  test_secret_is_properly_marked(specification) {
    const problems: string[] = [];
    for (const { path, key, parent } of walk(specification.properties)) {
      if (key !== 'type') continue;
      const name = [...path.slice(0, -1)].reverse().find((part) => !/^\d+$/.test(part) && !RESERVED.has(part));
      if (!name || !SECRET_PROPERTY_NAMES.includes(name.toLowerCase())) continue;
      const types = new Set<string>(Array.isArray(parent.type) ? parent.type : [parent.type]);
      const canHoldSecret = ['string', 'integer', 'number'].some((t) => types.has(t)) && !parent.const;
      const marked = parent.airbyte_secret === true;
      if (marked && !canHoldSecret) problems.push(`${path.slice(0, -1).join('/')}: airbyte_secret on a non-secret`);
      if (!marked && canHoldSecret) problems.push(`${path.slice(0, -1).join('/')}: a secret not marked airbyte_secret`);
    }
    return problems;
  },

  test_property_type_is_not_array(specification) {
    const problems: string[] = [];
    for (const { path, key, value } of walk(specification)) {
      if (key !== 'type' || path.at(-3) !== 'properties' || !Array.isArray(value)) continue;
      if (value.length !== 1 && value.length !== 2) problems.push(`${path.join('/')}: ${value.length} types`);
      if (value.length === 2 && value[1] !== 'null') problems.push(`${path.join('/')}: second type is not null`);
    }
    return problems;
  },

  test_object_not_empty(specification) {
    return [...walk(specification)]
      .filter(({ path, key, value }) => key === 'type' && path.length > 1 && value === 'object')
      .filter(({ parent }) => !('oneOf' in parent) && Object.keys(parent.properties ?? {}).length === 0)
      .map(({ path }) => `${path.join('/')}: an object with no properties`);
  },

  test_array_type(specification) {
    const problems: string[] = [];
    for (const { path, key, value, parent } of walk(specification)) {
      if (key !== 'type' || value !== 'array' || parent.items === undefined) continue;
      if (Array.isArray(parent.items)) problems.push(`${path.join('/')}: items is a list`);
      else if (!['object', 'string', 'number', 'integer'].includes(parent.items.type) && !('enum' in parent.items))
        problems.push(`${path.join('/')}: items neither object, string, number, integer nor an enum`);
    }
    return problems;
  },

  test_forbidden_complex_types(specification) {
    return [...walk(specification)]
      .filter(({ path, key }) => FORBIDDEN_SPEC_KEYWORDS.includes(key) && path.at(-2) !== 'properties')
      .map(({ path }) => `${path.join('/')}: a forbidden keyword`);
  },

  test_duplicate_order(specification) {
    const problems: string[] = [];
    for (const { path, key, value, parent } of walk(specification)) {
      if (key !== 'properties' || parent.type !== 'object') continue;
      const used = new Map<string, Set<unknown>>();
      for (const property of Object.values(value as Record<string, Json>)) {
        if (!property || !('order' in property)) continue;
        const group = used.get(property.group ?? '') ?? new Set();
        if (group.has(property.order)) problems.push(`${path.join('/')}: order ${property.order} twice`);
        used.set(property.group ?? '', group.add(property.order));
      }
    }
    return problems;
  },

  test_nested_group(specification) {
    return [...walk(specification.properties ?? {}, ['properties'])]
      .filter(({ path, key }) => key === 'group' && path.at(-2) !== 'properties' && path.length !== 3)
      .map(({ path }) => `${path.join('/')}: a group below the top level`);
  },

  test_display_type(specification) {
    const problems: string[] = [];
    for (const { path, key, parent } of walk(specification.properties ?? {}, ['properties'])) {
      if (key !== 'display_type' || path.at(-2) === 'properties') continue;
      if (!('oneOf' in parent)) problems.push(`${path.join('/')}: display_type without oneOf`);
      if (parent.display_type !== 'dropdown' && parent.display_type !== 'radio')
        problems.push(`${path.join('/')}: display_type neither dropdown nor radio`);
    }
    return problems;
  },

  test_defined_refs_exist_in_json_spec_file(specification) {
    return valuesOf(specification, '$ref').map((ref) => `unresolved $ref ${String(ref)}`);
  },

  test_additional_properties_is_true(specification) {
    return valuesOf(specification, 'additionalProperties')
      .filter((value) => value !== true)
      .map((value) => `additionalProperties is ${JSON.stringify(value)}`);
  },
};

/** A JSON Schema validator as CAT's jsonschema calls are (draft-07; formats as each call checks them). */
function ajv(formats: 'none' | 'cat') {
  const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
  const instance = new Ajv({ strict: false, allErrors: true, logger: false, validateFormats: formats === 'cat' });
  if (formats === 'cat') {
    // utils/asserts.py's CustomFormatChecker: a date-time is a date, T or a space, a time, anything after.
    const timestamp = /^\d{4}-\d?\d-\d?\d(\s|T)\d?\d:\d?\d:\d?\d(.\d+)?.*$/;
    instance.addFormat('date-time', (v: string) => timestamp.test(v) && !Number.isNaN(Date.parse(v)));
    instance.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
  }
  return instance;
}

/** test_config_match_spec: the configuration (keys starting with `_` dropped) validates against the spec. */
export function configMatchesSpec(config: Record<string, Json>, specification: Json): string[] {
  const kept = Object.fromEntries(Object.entries(config).filter(([key]) => !key.startsWith('_')));
  let validate: ValidateFunction;
  try {
    validate = ajv('none').compile(specification);
  } catch (error) {
    return [`the spec is not a valid schema: ${(error as Error).message}`];
  }
  return validate(kept) ? [] : (validate.errors ?? []).map((e) => `config ${e.instancePath || '/'} ${e.message}`);
}

/** test_image_environment_variables: AIRBYTE_ENTRYPOINT is set and equals the ENTRYPOINT, space-joined. */
export function imageEnvironmentProblems(image: { env: Record<string, string>; entrypoint: string[] }): string[] {
  const value = image.env.AIRBYTE_ENTRYPOINT;
  if (!value) return ['AIRBYTE_ENTRYPOINT is not set'];
  const entrypoint = image.entrypoint.join(' ');
  return value === entrypoint ? [] : [`AIRBYTE_ENTRYPOINT '${value}' is not the ENTRYPOINT '${entrypoint}'`];
}

// --- TestConnection -----------------------------------------------------------------------------

/** test_check: exactly one CONNECTION_STATUS, with the expected status. */
export function checkProblems(messages: Message[], expected: 'SUCCEEDED' | 'FAILED'): string[] {
  const statuses = messages.filter((m) => m.type === 'CONNECTION_STATUS');
  if (statuses.length !== 1) return [`${statuses.length} CONNECTION_STATUS messages, not exactly one`];
  const status = statuses[0]!.connectionStatus.status;
  return status === expected ? [] : [`status ${status}, not ${expected}`];
}

/** test_check with status `exception`: exactly one TRACE, an error with a message. */
export function checkExceptionProblems(messages: Message[]): string[] {
  const traces = messages.filter((m) => m.type === 'TRACE');
  if (traces.length !== 1) return [`${traces.length} TRACE messages, not exactly one`];
  return traces[0]!.trace.error?.message ? [] : ['the TRACE has no error message'];
}

// --- TestDiscovery ------------------------------------------------------------------------------

export interface Stream {
  name: string;
  json_schema: Json;
  supported_sync_modes?: string[];
  source_defined_cursor?: boolean;
  default_cursor_field?: string[];
  source_defined_primary_key?: string[][];
}

/** find_keyword_schema: the keyword anywhere, but not as a property name under an object's properties. */
function hasKeyword(node: Json, keyword: string, skip = false): boolean {
  if (Array.isArray(node)) return node.some((n) => hasKeyword(n, keyword));
  if (node === null || typeof node !== 'object') return false;
  return Object.entries(node).some(
    ([key, value]) =>
      (key === keyword && !skip) || hasKeyword(value, keyword, key === 'properties' && node.type === 'object'),
  );
}

/** The streams of the one CATALOG message (test_discover's checks come first, in discoveryChecks). */
export function discoveredStreams(messages: Message[]): Stream[] {
  return (messages.find((m) => m.type === 'CATALOG')?.catalog.streams ?? []) as Stream[];
}

/** TestDiscovery's checks, by CAT test name, on the messages of one discover. */
export const DISCOVERY_CHECKS: Record<string, (messages: Message[]) => string[]> = {
  test_discover(messages) {
    const catalogs = messages.filter((m) => m.type === 'CATALOG');
    if (catalogs.length !== 1) return [`${catalogs.length} CATALOG messages, not exactly one`];
    const streams = (catalogs[0]!.catalog?.streams ?? []) as Stream[];
    if (streams.length === 0) return ['the catalog has no streams'];
    const names = streams.map((s) => s.name);
    return names.filter((n, i) => names.indexOf(n) !== i).map((n) => `stream '${n}' twice`);
  },
  test_streams_have_valid_json_schemas(messages) {
    const validator = ajv('none');
    return discoveredStreams(messages)
      .filter((s) => !validator.validateSchema(s.json_schema))
      .map((s) => `${s.name}: not a draft-07 schema: ${JSON.stringify(validator.errors)}`);
  },
  test_defined_cursors_exist_in_schema(messages) {
    return discoveredStreams(messages)
      .filter((s) => s.default_cursor_field?.length)
      .filter(
        (s) =>
          at(
            s.json_schema.properties,
            s.default_cursor_field!.flatMap((f, i) => (i ? ['properties', f] : [f])),
          ) === undefined,
      )
      .map((s) => `${s.name}: default_cursor_field ${s.default_cursor_field!.join('.')} not in its properties`);
  },
  test_defined_refs_exist_in_schema(messages) {
    return discoveredStreams(messages)
      .filter((s) => valuesOf(s.json_schema, '$ref').length > 0)
      .map((s) => `${s.name}: unresolved $ref`);
  },
  test_defined_keyword_exist_in_schema(messages) {
    return discoveredStreams(messages).flatMap((s) =>
      ['allOf', 'not'].filter((k) => hasKeyword(s.json_schema, k)).map((k) => `${s.name}: keyword ${k}`),
    );
  },
  test_primary_keys_exist_in_schema(messages) {
    return discoveredStreams(messages).flatMap((s) =>
      (s.source_defined_primary_key ?? [])
        .filter(
          (key) =>
            at(
              s.json_schema.properties,
              key.flatMap((f, i) => (i ? ['properties', f] : [f])),
            ) === undefined,
        )
        .map((key) => `${s.name}: primary key ${key.join('.')} not in its properties`),
    );
  },
  test_streams_has_sync_modes(messages) {
    return discoveredStreams(messages)
      .filter((s) => !s.supported_sync_modes?.length)
      .map((s) => `${s.name}: no supported_sync_modes`);
  },
  test_additional_properties_is_true(messages) {
    return discoveredStreams(messages)
      .filter((s) => valuesOf(s.json_schema, 'additionalProperties').some((v) => v !== true))
      .map((s) => `${s.name}: additionalProperties not true`);
  },
  test_primary_keys_data_type(messages) {
    return discoveredStreams(messages).flatMap((s) =>
      (s.source_defined_primary_key ?? []).flatMap((key) => {
        const definition = at(
          s.json_schema.properties,
          key.flatMap((f, i) => (i ? ['properties', f] : [f])),
        );
        if (definition === undefined) return [`${s.name}: primary key ${key.join('.')} not in its schema`];
        const types: unknown[] = [definition.type ?? []].flat();
        return types.some((t) => t === 'object' || t === 'array')
          ? [`${s.name}: primary key ${key.join('.')} typed ${JSON.stringify(definition.type)}`]
          : [];
      }),
    );
  },
};

// --- configured catalogs, as CAT builds them -----------------------------------------------------

export interface ConfiguredStream {
  stream: Stream;
  sync_mode: string;
  destination_sync_mode: string;
  cursor_field?: string[];
  primary_key?: string[][];
}

/** build_configured_catalog_from_discovered_catalog_and_empty_streams: every stream, its first sync mode, append. */
export function configuredFromDiscovered(streams: Stream[]): { streams: ConfiguredStream[] } {
  return {
    streams: streams.map((stream) => ({
      stream,
      sync_mode: stream.supported_sync_modes![0]!,
      destination_sync_mode: 'append',
      ...(stream.default_cursor_field ? { cursor_field: stream.default_cursor_field } : {}),
      ...(stream.source_defined_primary_key ? { primary_key: stream.source_defined_primary_key } : {}),
    })),
  };
}

/** full_refresh_only_catalog: the streams that support full_refresh, configured so. */
export function fullRefreshOnly(catalog: { streams: ConfiguredStream[] }): { streams: ConfiguredStream[] } {
  return {
    streams: catalog.streams
      .filter((s) => s.stream.supported_sync_modes?.includes('full_refresh'))
      .map((s) => ({ ...s, sync_mode: 'full_refresh' })),
  };
}

/**
 * test_incremental.py's configured_catalog_for_incremental: incremental_only_catalog (the streams
 * that support incremental, configured so), each with a cursor_field or, failing that, its
 * default_cursor_field; a stream with neither fails the test.
 */
export function incrementalOnly(catalog: { streams: ConfiguredStream[] }): {
  catalog: { streams: ConfiguredStream[] };
  problems: string[];
} {
  const streams = catalog.streams
    .filter((s) => s.stream.supported_sync_modes?.includes('incremental'))
    .map((s) => ({ ...s, sync_mode: 'incremental', cursor_field: s.cursor_field ?? s.stream.default_cursor_field }));
  return {
    catalog: { streams },
    problems: streams
      .filter((s) => !s.cursor_field?.length)
      .map((s) => `${s.stream.name}: neither cursor_field nor default_cursor_field`),
  };
}

// --- TestBasicRead ------------------------------------------------------------------------------

const records = (messages: Message[]) => messages.filter((m) => m.type === 'RECORD').map((m) => m.record);

/** json_schema_helper's get_expected_schema_structure: the paths a schema's properties describe. */
function schemaPaths(schema: Json, prefix = ''): string[] {
  const out: string[] = [];
  for (const [name, property] of Object.entries((schema?.properties ?? {}) as Record<string, Json>)) {
    const path = `${prefix}/${name}`;
    out.push(path);
    const types: unknown[] = [property?.type ?? []].flat();
    if (types.includes('object')) out.push(...schemaPaths(property, path));
    if (types.includes('array') && property.items) out.push(`${path}/[]`, ...schemaPaths(property.items, `${path}/[]`));
  }
  return out;
}

/** json_schema_helper's get_object_structure: the paths a record's data holds. */
function objectPaths(value: Json, prefix = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => [`${prefix}/[]`, ...objectPaths(v, `${prefix}/[]`)]);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [`${prefix}/${k}`, ...objectPaths(v, `${prefix}/${k}`)]);
}

/**
 * TestBasicRead.test_read's checks, by the name of the step, on one read of the catalog CAT builds
 * from discover, with BasicReadTestConfig's defaults: validate_schema, fail_on_extra_columns,
 * validate_primary_keys_data_type, validate_state_messages on; validate_stream_statuses on for a
 * certified connector (what we aim at); no empty streams declared; validate_data_points off; no
 * expected records.
 */
export const BASIC_READ_CHECKS: Record<
  string,
  (messages: Message[], catalog: { streams: ConfiguredStream[] }) => string[]
> = {
  'at least one record'(messages) {
    return records(messages).length > 0 ? [] : ['no record was read'];
  },
  _validate_records_structure(messages, catalog) {
    const expected = new Map(catalog.streams.map((s) => [s.stream.name, new Set(schemaPaths(s.stream.json_schema))]));
    return records(messages)
      .filter((r) => expected.get(r.stream)?.size && !objectPaths(r.data).some((p) => expected.get(r.stream)!.has(p)))
      .map((r) => `${r.stream}: a record with no field its schema names`);
  },
  verify_records_schema(messages, catalog) {
    const validator = ajv('cat');
    const validators = new Map(catalog.streams.map((s) => [s.stream.name, validator.compile(s.stream.json_schema)]));
    const problems = new Map<string, string>();
    for (const record of records(messages)) {
      const validate = validators.get(record.stream);
      if (!validate || validate(record.data)) continue;
      for (const error of validate.errors ?? [])
        problems.set(`${record.stream}${error.schemaPath}`, `${record.stream}: ${error.instancePath} ${error.message}`);
    }
    return [...problems.values()];
  },
  fail_on_extra_columns(messages, catalog) {
    const declared = new Map(
      catalog.streams.map((s) => [s.stream.name, new Set(Object.keys(s.stream.json_schema.properties ?? {}))]),
    );
    const extra = new Set<string>();
    for (const record of records(messages))
      for (const column of Object.keys(record.data))
        if (declared.has(record.stream) && !declared.get(record.stream)!.has(column))
          extra.add(`${record.stream}: column '${column}' is not in the stream's json_schema`);
    return [...extra];
  },
  _validate_empty_streams(messages, catalog) {
    const seen = new Set(records(messages).map((r) => r.stream));
    return catalog.streams.filter((s) => !seen.has(s.stream.name)).map((s) => `${s.stream.name}: no records`);
  },
  _validate_primary_keys_data_type(messages, catalog) {
    const problems = new Set<string>();
    for (const { stream } of catalog.streams) {
      if (!stream.source_defined_primary_key?.length) continue;
      for (const record of records(messages).filter((r) => r.stream === stream.name)) {
        const values = stream.source_defined_primary_key.map((path) => at(record.data, path));
        if (values.some((v) => v !== null && typeof v === 'object'))
          problems.add(`${stream.name}: a primary key value is an object or an array`);
        if (values.every((v) => v === null || v === undefined))
          problems.add(`${stream.name}: a record whose primary key is null in all its parts`);
      }
    }
    return [...problems];
  },
  _validate_stream_statuses(messages, catalog) {
    const statuses = new Map<string, string[]>();
    for (const m of messages) {
      if (m.type !== 'TRACE' || m.trace.type !== 'STREAM_STATUS') continue;
      const { name, namespace } = m.trace.stream_status.stream_descriptor;
      const key = `${namespace ?? 'None'}-${name}`;
      statuses.set(key, [...(statuses.get(key) ?? []), m.trace.stream_status.status]);
    }
    const expected = catalog.streams.map((s) => `None-${s.stream.name}`).sort();
    if (JSON.stringify([...statuses.keys()].sort()) !== JSON.stringify(expected))
      return [`streams with statuses ${[...statuses.keys()].join(', ')}, not ${expected.join(', ')}`];
    return [...statuses].flatMap(([stream, list]) =>
      list.length >= 3 &&
      list[0] === 'STARTED' &&
      list.at(-1) === 'COMPLETE' &&
      list.slice(1, -1).every((s) => s === 'RUNNING')
        ? []
        : [`${stream}: statuses ${list.join(', ')}, not STARTED, RUNNING…, COMPLETE`],
    );
  },
  _validate_state_messages(messages, catalog) {
    const states = messages.filter((m) => m.type === 'STATE').map((m) => m.state);
    const problems =
      states.length >= catalog.streams.length
        ? []
        : [`${states.length} STATE messages for ${catalog.streams.length} streams`];
    for (const state of states) {
      if (state.type === 'LEGACY' || state.type === undefined) problems.push('a LEGACY state');
      if (typeof state.stream?.stream_descriptor?.name !== 'string')
        problems.push('a state without stream.stream_descriptor.name');
      if (typeof state.sourceStats?.recordCount !== 'number') problems.push('a state without sourceStats');
    }
    return problems;
  },
};

/** test_airbyte_trace_message_on_failure: a read of a stream that does not exist, with an invalid sync mode. */
export const INVALID_CATALOG = {
  streams: [
    {
      stream: {
        name: '__AIRBYTE__stream_that_does_not_exist',
        json_schema: { type: 'object', properties: { f1: { type: 'string' } } },
        supported_sync_modes: ['full_refresh'],
      },
      sync_mode: 'INVALID',
      destination_sync_mode: 'INVALID',
    },
  ],
};

export function traceOnFailureProblems(messages: Message[]): string[] {
  return messages.some((m) => m.type === 'TRACE' && m.trace.type === 'ERROR') ? [] : ['no TRACE error'];
}

// --- TestFullRefresh ----------------------------------------------------------------------------

/** test_sequential_reads: every record of the second read emitted after every record of the first. */
export function emittedAtIncreaseProblems(first: Message[], second: Message[]): string[] {
  const one = records(first).map((r) => r.emitted_at as number);
  const two = records(second).map((r) => r.emitted_at as number);
  if (one.length === 0) return ['the first read has no records'];
  if (two.length === 0) return ['the second read has no records'];
  return Math.max(...one) < Math.min(...two) ? [] : ['emitted_at did not increase from the first read to the second'];
}

/**
 * Earlier versions of test_sequential_reads: both reads give the same records per stream (ignoring
 * order), and no record twice in a read of a stream with a primary key.
 */
export function sameRecordsProblems(first: Message[], second: Message[]): string[] {
  const byStream = (messages: Message[]) => {
    const out = new Map<string, string[]>();
    for (const r of records(messages))
      out.set(r.stream, [...(out.get(r.stream) ?? []), JSON.stringify(sortKeys(r.data))]);
    for (const list of out.values()) list.sort();
    return out;
  };
  const [a, b] = [byStream(first), byStream(second)];
  const problems: string[] = [];
  for (const stream of new Set([...a.keys(), ...b.keys()]))
    if (JSON.stringify(a.get(stream)) !== JSON.stringify(b.get(stream)))
      problems.push(`${stream}: the two reads gave different records`);
  return problems;
}

function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys(value[k])]),
  );
}

// --- TestIncremental ----------------------------------------------------------------------------

export interface StateMessage {
  type: string;
  stream?: { stream_descriptor: { name: string }; stream_state?: Json };
  sourceStats?: { recordCount: number };
}

/**
 * test_two_sequential_reads: construct_latest_state_from_messages — the last STREAM state of each
 * stream — as the input of the second read.
 */
export function latestStateInput(messages: Message[]): Json[] {
  const latest = new Map<string, Json>();
  for (const m of messages)
    if (m.type === 'STATE' && m.state.type === 'STREAM')
      latest.set(m.state.stream.stream_descriptor.name, m.state.stream.stream_state ?? {});
  return [...latest].map(([name, stream_state]) => ({
    type: 'STREAM',
    stream: { stream_descriptor: { name }, stream_state },
  }));
}

/** naive_diff_records is empty: both reads' record data, ignoring order, are the same. */
export function recordsDiffer(first: Message[], second: Message[]): boolean {
  const data = (messages: Message[]) =>
    records(messages)
      .map((r) => JSON.stringify(sortKeys(r.data)))
      .sort();
  return JSON.stringify(data(first)) !== JSON.stringify(data(second));
}

/**
 * test_read_sequential_slices' choice of checkpoints: consecutive states with the same stream_state
 * merged into the first (their record counts summed), the last one kept when it differs, states of
 * no record dropped; each with the records still expected after it. Of those, with fewer than 3 the
 * last one only, otherwise every MIN_BATCHES_TO_TEST-th but the first and the last.
 */
export function sequentialSliceStates(states: StateMessage[]): { state: StateMessage; expected: number }[] {
  const count = (s: StateMessage) => s.sourceStats?.recordCount ?? 0;
  const same = (a: StateMessage, b: StateMessage) =>
    JSON.stringify(a.stream ? a.stream.stream_state : a) === JSON.stringify(b.stream ? b.stream.stream_state : b);
  let unique: { state: StateMessage; expected: number }[];
  if (states.length <= 1) {
    unique = states.filter((s) => count(s)).map((state) => ({ state, expected: 0 }));
  } else {
    const merged: StateMessage[] = [];
    const counted = states.map((s) => ({ ...s, sourceStats: { recordCount: count(s) } }));
    let current = 0;
    while (current < counted.length - 1) {
      let next = current + 1;
      while (same(counted[current]!, counted[next]!) && next < counted.length - 1) next++;
      counted[current]!.sourceStats = {
        recordCount: counted.slice(current, next).reduce((sum, s) => sum + count(s), 0),
      };
      merged.push(counted[current]!);
      if (next === counted.length - 1 && !same(counted[current]!, counted[next]!)) merged.push(counted[next]!);
      current = next;
    }
    const nonZero = merged.filter((s) => count(s));
    const total = nonZero.reduce((sum, s) => sum + count(s), 0);
    unique = nonZero.map((state, i) => ({
      state,
      expected: total - nonZero.slice(0, i + 1).reduce((sum, s) => sum + count(s), 0),
    }));
  }
  if (unique.length < 3) return unique.slice(-1);
  const rate = Math.floor(unique.length / 5) || 1;
  return unique.filter((_, i) => i !== 0 && i % rate === 0 && i !== unique.length - 1);
}

/**
 * Earlier versions of both incremental tests: with a state that holds the stream's cursor value (at
 * its cursor_field path), every record read from it has a cursor value not less than the state's.
 * Returns undefined when the state holds no value there: CAT could not compare (not testable).
 */
export function cursorNotBeforeStateProblems(
  messages: Message[],
  stream: ConfiguredStream,
  streamState: Json,
): string[] | undefined {
  const path = stream.cursor_field ?? [];
  const threshold = at(streamState, path);
  if (threshold === undefined || threshold === null) return undefined;
  return records(messages)
    .filter((r) => r.stream === stream.stream.name)
    .filter((r) => compare(at(r.data, path), threshold) < 0)
    .map(
      (r) =>
        `${stream.stream.name}: cursor ${JSON.stringify(at(r.data, path))} before the state's ${JSON.stringify(threshold)}`,
    );
}

function compare(a: Json, b: Json): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [Date.parse(a), Date.parse(b)];
  if (!Number.isNaN(x) && !Number.isNaN(y)) return x - y;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}
