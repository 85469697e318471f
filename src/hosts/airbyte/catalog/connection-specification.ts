import type { ConfigurationDescription, ConfigurationField } from '../../../project/index.js';
import type { JsonObject } from '../messages/index.js';

/**
 * The `connectionSpecification` of SPEC: a JSON Schema Airbyte draws its form from and checks a
 * configuration against, built from the one key model (describeConfiguration) that also gives the
 * Fivetran form. Every key is a string, as in configuration.json; secret keys say
 * `airbyte_secret: true` (Airbyte masks them in its UI and API, and keeps them in its secret store).
 *
 * `auth_method` is an object whose `oneOf` lists the methods the source accepts, each with its own
 * keys and an `auth_method` member fixed to its name (`const`): the form shows a method picker, and
 * the configuration it saves nests the method's keys under `auth_method`, which `--config`
 * flattens (airbyte-configuration.ts). A key that every method may use (a source key, the TLS keys,
 * the connector's own) sits at the top level and is not repeated in the methods.
 */
export function connectionSpecification(description: ConfigurationDescription, title: string): JsonObject {
  let order = 1;
  const top = [...description.sourceFields, ...description.connector, ...description.tls, ...description.common];
  const topKeys = new Set(top.map((f) => f.key));
  const properties: JsonObject = {
    auth_method: {
      title: 'Authentication (auth_method)',
      description: `How the connector authenticates to its ${description.source} source`,
      type: 'object',
      order: 0,
      oneOf: description.methods.map((method) => {
        const fields = method.fields.filter((f) => !topKeys.has(f.key) && f.key !== 'auth_method');
        let inner = 1;
        return {
          title: method.name,
          description: method.summary,
          type: 'object',
          required: ['auth_method', ...fields.filter((f) => f.required).map((f) => f.key)],
          properties: {
            // `const` alone: Airbyte's acceptance tests (test_oneof_usage) refuse a `default` or an `enum`
            // on the property that tells the variants apart (later versions accept one equal to the const).
            auth_method: { type: 'string', const: method.name, order: 0 },
            ...Object.fromEntries(fields.map((f) => [f.key, property(f, inner++)])),
          },
        };
      }),
    },
  };
  const seen = new Set<string>();
  for (const field of top) {
    if (seen.has(field.key)) continue;
    seen.add(field.key);
    properties[field.key] = property(field, order++);
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title,
    type: 'object',
    required: ['auth_method', ...top.filter((f) => f.required).map((f) => f.key)],
    // A key the model does not list (a connector's key read outside its schema) is still passed on.
    additionalProperties: true,
    properties,
  };
}

/** Keys whose values are files pasted whole: PEM blocks, JSON key files. */
const MULTILINE = /certificate|private_key$|client_assertion_key$|service_account_key|credential_configuration|pkcs12$/;

function property(field: ConfigurationField, order: number): JsonObject {
  return {
    type: 'string',
    title: field.key,
    ...(field.description ? { description: field.description } : {}),
    ...(field.secret ? { airbyte_secret: true } : {}),
    ...(field.default !== undefined ? { default: field.default } : {}),
    ...(field.choices ? { enum: field.choices } : {}),
    ...(MULTILINE.test(field.key) ? { multiline: true } : {}),
    order,
  };
}
