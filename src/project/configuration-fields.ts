import { z } from 'zod';
import { commonKeys, isSecretKey, KEY_CATALOGUE, schemaDefaults } from '../config/index.js';
import {
  methodCapabilities,
  offeredMethods,
  resolveMethod,
  type ConnectorDefinition,
  type SourceClients,
} from '../connector/index.js';
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
   * The value the schema uses when the key is absent, as configuration.json would write it; never
   * for a secret key.
   */
  default?: string;
  /** The only values the schema accepts, when it names them (a dropdown rather than a text box). */
  choices?: string[];
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
   * The TLS keys (catalogue scope `tls`: a private CA, a client certificate) for a source that
   * speaks TLS and reads them whatever the auth method; empty for the others (sftp, custom sources).
   */
  tls: ConfigurationField[];
  /** The methods the source accepts, each with its keys, in the source's order. */
  methods: MethodFields[];
  /** The connector's own keys, from its `configuration` schema. */
  connector: ConfigurationField[];
}

/** The TLS keys, listed for a source that declares `tls: true` (they are in no schema of its own). */
const tlsKeys = z.object(
  Object.fromEntries(
    Object.entries(KEY_CATALOGUE)
      .filter(([, spec]) => spec.scope === 'tls')
      .map(([key]) => [key, z.string().optional()]),
  ),
);

type AnyConnector = Pick<
  ConnectorDefinition<keyof SourceClients | SourceDefinition, z.ZodType>,
  'source' | 'configuration' | 'secretKeys' | 'auth'
>;

export async function describeConfiguration(connector: AnyConnector): Promise<ConfigurationDescription> {
  const source = typeof connector.source === 'string' ? await loadSource(connector.source) : connector.source;
  const connectorSecrets = new Set(connector.secretKeys ?? []);
  const sourceFields = fieldsOf(source.keys);
  const withMethod = methodOnlyKeys(source);
  const methods = await Promise.all(
    offeredMethods(source.needs, connector.auth).map(async (name) => {
      const method = await resolveMethod(name, connector.auth);
      const need = source.needs.find((n) => methodCapabilities(name, connector.auth).includes(n));
      const own = new Set(need ? source.keysFor?.[need] : []);
      return {
        name,
        summary: method.summary,
        fields: [...fieldsOf(method.keys, new Set(method.secretKeys)), ...sourceFields.filter((f) => own.has(f.key))],
      };
    }),
  );
  return {
    source: source.name,
    common: fieldsOf(commonKeys).filter((field) => field.key !== 'auth_method'),
    sourceFields: sourceFields.filter((f) => !withMethod.has(f.key)),
    tls: source.tls ? fieldsOf(tlsKeys) : [],
    methods,
    connector: connector.configuration
      ? fieldsOf(connector.configuration, connectorSecrets, 'a key of this connector')
      : [],
  };
}

/** The source keys shown with the methods that bring their capability (`keysFor`), not on their own. */
const methodOnlyKeys = (source: SourceDefinition) => new Set(Object.values(source.keysFor ?? {}).flat());

/**
 * The keys of a schema of string keys, read through zod's JSON Schema of its input (coercions and
 * refinements have no say in which keys exist). A schema that is not an object has no fields.
 */
function fieldsOf(
  schema: z.ZodType,
  extraSecrets: ReadonlySet<string> = new Set(),
  fallback = '',
): ConfigurationField[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, { description?: string; default?: unknown; enum?: unknown[] }>;
    required?: string[];
  };
  const required = new Set(json.required ?? []);
  const defaults = schemaDefaults(schema);
  return Object.entries(json.properties ?? {}).map(([key, property]) => {
    const known = KEY_CATALOGUE[key];
    const secret = isSecretKey(key, extraSecrets);
    // A secret's default is a credential written in the code: no form or spec shows it to a person.
    const fallbackValue = secret
      ? undefined
      : (defaults.get(key) ?? (typeof property.default === 'string' ? property.default : undefined));
    const choices =
      Array.isArray(property.enum) && property.enum.every((v) => typeof v === 'string')
        ? (property.enum as string[])
        : undefined;
    return {
      key,
      description: known?.description ?? property.description ?? fallback,
      secret,
      required: required.has(key),
      ...(fallbackValue !== undefined ? { default: fallbackValue } : {}),
      ...(choices ? { choices } : {}),
    };
  });
}
