import type { ConfigurationDescription, ConfigurationField } from '../../../project/index.js';
import { formField, type FormFieldMessage } from './form-field.js';
import { behindSwitches } from './form-switches.js';

/**
 * ConfigurationFormResponse from the one description of a connector's keys (describeConfiguration):
 *
 * - `auth_method` first, a dropdown of the methods the source accepts, each with its summary
 *   (DescriptiveDropDownFields), then one ConditionalFields group per method holding that method's
 *   keys, visible while `auth_method` is that method;
 * - the source's keys, its TLS keys, the connector's own keys, then the common ones (timeouts,
 *   switches) last; a key already shown outside a method group is not repeated inside one;
 * - the SSH tunnel's keys and the TLS keys behind a toggle each (form-switches.ts): the rest-api
 *   template's form shows 13 fields until a method is chosen or a toggle turned on;
 * - a secret key is a Password text field, a choice a dropdown, a true/false key a toggle, anything
 *   else plain text; `required`, the description and the default as the schemas say;
 * - one test, `probe`: Test runs it.
 *
 * Selection: tables may be chosen (Update applies the choice to the records, selection.ts); there
 * are no schemas to choose.
 */

export const PROBE_TEST = {
  name: 'probe',
  label: 'Authenticate to the source and run one lightweight request',
} as const;

export interface ConfigurationFormMessage {
  schema_selection_supported: boolean;
  table_selection_supported: boolean;
  fields: FormFieldMessage[];
  tests: { name: string; label: string }[];
}

export function configurationForm(description: ConfigurationDescription): ConfigurationFormMessage {
  const outside = [...description.sourceFields, ...description.tls, ...description.connector, ...description.common];
  const shown = new Set(outside.map((f) => f.key));
  const only = description.methods.length === 1 ? description.methods[0]!.name : undefined;
  const authMethod: FormFieldMessage = {
    name: 'auth_method',
    label: 'Authentication method',
    required: true,
    description: `How the connector authenticates to the ${description.source} source; the keys of the method chosen appear below it.`,
    descriptive_dropdown_fields: {
      descriptive_dropdown_field: description.methods.map((m) => ({
        value: m.name,
        label: m.name,
        description: m.summary,
      })),
    },
    ...(only ? { default_value: only } : {}),
  };
  const groups = description.methods
    .map((method): FormFieldMessage | undefined => {
      const fields = method.fields.filter((f) => !shown.has(f.key)).map(formField);
      if (fields.length === 0) return undefined;
      return {
        name: `auth_method_${method.name}`,
        label: `${method.name} keys`,
        conditional_fields: { condition: { condition_field: 'auth_method', string_value: method.name }, fields },
      };
    })
    .filter((group): group is FormFieldMessage => group !== undefined);
  // A connector's own key that shares a name with one of ours is the same configuration key: once.
  const seen = new Set<string>();
  const once = (fields: ConfigurationField[]) =>
    fields.filter((f) => !seen.has(f.key) && seen.add(f.key)).map(formField);
  return {
    schema_selection_supported: false,
    table_selection_supported: true,
    fields: [
      authMethod,
      ...groups,
      ...behindSwitches([
        ...once(description.sourceFields),
        ...once(description.tls),
        ...once(description.connector),
        ...once(description.common),
      ]),
    ],
    tests: [{ ...PROBE_TEST }],
  };
}
