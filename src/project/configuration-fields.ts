import { z } from 'zod';
import { loadAuthMethod } from '../auth/index.js';
import { commonKeys, isSecretKey, KEY_CATALOGUE } from '../config/index.js';
import type { ConnectorDefinition, SourceClients } from '../connector/index.js';
import { tlsKeys } from '../network/index.js';
import { loadSource, type SourceDefinition } from '../sources/index.js';

/**
 * What a configuration of one connector may hold, described once for every host that must show it
 * to a person: the Fivetran partner SDK's `ConfigurationForm`, Airbyte's `spec`, and the docs. The
 * zod schemas stay the truth about a key's type and coercion; this reads from them which keys exist
 * and which are required, and from the key catalogue what each is for and whether it is a secret.
 */

export interface ConfigurationField {
  key: string;
  description: string;
  secret: boolean;
  /** The schema refuses a configuration without it. */
  required: boolean;
  /**
   * How a value is given: free `text`, one of `values` (`choice`), or a `switch` (the schema reads
   * "true" / "false" as a boolean).
   */
  kind: 'text' | 'choice' | 'switch';
  /** The accepted values of a `choice`, in the schema's order. */
  values?: string[];
  /** What an absent key means, spelled as configuration.json would hold it ("10", "false", "verify-full"). */
  default?: string;
}

export interface MethodFields {
  /** The `auth_method` value. */
  name: string;
  summary: string;
  fields: ConfigurationField[];
}

export interface ConfigurationDescription {
  /** The source's name: `rest`, `postgres`, … or a custom source's. */
  source: string;
  /** Keys every configuration may carry (`auth_method` excluded: `methods` are its choices). */
  common: ConfigurationField[];
  /** The source's own keys (base_url, host, bucket, the SSH tunnel's …). */
  sourceFields: ConfigurationField[];
  /**
   * The TLS material keys (a CA, a client certificate) for a source that reads them whatever the
   * method (the HTTP sources, postgres); empty otherwise. `tls_skip_verify` is a common key.
   */
  tls: ConfigurationField[];
  /** The methods the source accepts, each with its keys, in the source's order. */
  methods: MethodFields[];
  /** The connector's own keys, from its `configuration` schema. */
  connector: ConfigurationField[];
}

type AnyConnector = Pick<ConnectorDefinition<keyof SourceClients | SourceDefinition, z.ZodType>, 'source' | 'configuration' | 'secretKeys'>;

export async function describeConfiguration(connector: AnyConnector): Promise<ConfigurationDescription> {
  const source = typeof connector.source === 'string' ? await loadSource(connector.source) : connector.source;
  const connectorSecrets = new Set(connector.secretKeys ?? []);
  const methods = await Promise.all(
    source.acceptsMethods.map(async (name) => {
      const method = await loadAuthMethod(name);
      return { name, summary: method.summary, fields: fieldsOf(method.keys) };
    }),
  );
  const common = fieldsOf(commonKeys).filter((field) => field.key !== 'auth_method');
  return {
    source: source.name,
    common,
    sourceFields: fieldsOf(source.keys),
    tls: source.readsTlsKeys ? fieldsOf(tlsKeys).filter((field) => !common.some((c) => c.key === field.key)) : [],
    methods,
    connector: connector.configuration ? fieldsOf(connector.configuration, connectorSecrets, 'a key of this connector') : [],
  };
}

/**
 * The keys of a schema of string keys, read through zod's JSON Schema of its input (coercions and
 * refinements have no say in which keys exist). A schema that is not an object has no fields.
 */
function fieldsOf(schema: z.ZodType, extraSecrets: ReadonlySet<string> = new Set(), fallback = ''): ConfigurationField[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, { description?: string; enum?: unknown[] }>;
    required?: string[];
  };
  const required = new Set(json.required ?? []);
  const shape = (schema as { shape?: Record<string, z.ZodType> }).shape ?? {};
  return Object.entries(json.properties ?? {}).map(([key, property]) => {
    const known = KEY_CATALOGUE[key];
    const absent = shape[key] ? valueWhenAbsent(shape[key]) : undefined;
    const text = asConfigurationText(absent);
    const values = Array.isArray(property.enum) && property.enum.every((v) => typeof v === 'string') ? (property.enum as string[]) : undefined;
    return {
      key,
      description: known?.description ?? property.description ?? fallback,
      secret: isSecretKey(key, extraSecrets),
      required: required.has(key),
      kind: typeof absent === 'boolean' ? 'switch' : values ? 'choice' : 'text',
      ...(values ? { values } : {}),
      ...(text !== undefined ? { default: text } : {}),
    } satisfies ConfigurationField;
  });
}

/**
 * What the key's own schema makes of an absent key: its default, typed (a number, a boolean, a URL),
 * or undefined when the key is optional or required. Asking the schema keeps the default where it
 * is written (`keys.positiveNumber({ default: 10 })`, a connector's `.default('items')`).
 */
function valueWhenAbsent(schema: z.ZodType): unknown {
  const result = schema.safeParse(undefined);
  return result.success ? result.data : undefined;
}

/** A typed default spelled back as configuration.json text; undefined for what has no such spelling. */
function asConfigurationText(value: unknown): string | undefined {
  // An empty default ("nothing given") is no default to show.
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof URL) return value.href;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) return value.join(',');
  return undefined;
}
