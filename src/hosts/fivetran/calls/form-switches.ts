import { KEY_CATALOGUE } from '../../../config/index.js';
import type { FormFieldMessage } from './form-field.js';

/**
 * Groups of keys most connections leave empty, kept off the Fivetran form until a toggle asks for
 * them: the partner SDK's guide asks for a form "clear and concise, only requesting essential
 * information", and its ConditionalFields show a group while a toggle is on (`bool_value`).
 *
 * A switch is a form field only, never a configuration key: `fromForm` removes it from what
 * Fivetran sends before the configuration is read, so no key check sees it. A switch that is off
 * also removes the keys behind it: Fivetran may keep the values of hidden fields, and a tunnel the
 * user switched off must not still be dialled. A configuration without the switch (written by
 * hand, or through the REST API) keeps every key it names.
 */

interface FormSwitch {
  /** The toggle's field name: prefixed `use_`, a name no catalogue key has. */
  name: string;
  label: string;
  description: string;
  /** The key catalogue scope whose keys it hides. */
  scope: string;
}

const FORM_SWITCHES: readonly FormSwitch[] = [
  {
    name: 'use_ssh_tunnel',
    label: 'Connect through an SSH tunnel',
    description: 'Turn on when the source is reached only through a bastion host; its SSH keys appear below.',
    scope: 'ssh_tunnel',
  },
  {
    name: 'use_custom_tls',
    label: 'Custom TLS (private CA, client certificate)',
    description:
      'Turn on to trust a private CA or to present a client certificate (auth_method mtls needs one); the TLS keys appear below.',
    scope: 'tls',
  },
];

const switchOf = (key: string) => FORM_SWITCHES.find((s) => KEY_CATALOGUE[key]?.scope === s.scope);

/**
 * The fields in their order, each switch's keys moved behind its toggle: the toggle and its
 * group stand where the first of those keys stood.
 */
export function behindSwitches(fields: FormFieldMessage[]): FormFieldMessage[] {
  const groups = new Map<FormSwitch, FormFieldMessage[]>();
  const out: FormFieldMessage[] = [];
  for (const field of fields) {
    const at = switchOf(field.name);
    if (!at) {
      out.push(field);
      continue;
    }
    let group = groups.get(at);
    if (!group) {
      group = [];
      groups.set(at, group);
      out.push(...switchFields(at, group));
    }
    group.push(field);
  }
  return out;
}

function switchFields(at: FormSwitch, group: FormFieldMessage[]): FormFieldMessage[] {
  return [
    {
      name: at.name,
      label: at.label,
      required: false,
      description: at.description,
      toggle_field: {},
      default_value: 'false',
    },
    {
      name: `${at.name}_keys`,
      label: `${at.label}: keys`,
      conditional_fields: { condition: { condition_field: at.name, bool_value: true }, fields: group },
    },
  ];
}

/** A configuration as the form sent it, without the switches, and without the keys of a switch that is off. */
export function fromForm<T>(configuration: T): T {
  if (typeof configuration !== 'object' || configuration === null || Array.isArray(configuration)) return configuration;
  const values = configuration as Record<string, unknown>;
  const off = new Set(FORM_SWITCHES.filter((s) => String(values[s.name]) === 'false').map((s) => s.scope));
  const names = new Set(FORM_SWITCHES.map((s) => s.name));
  return Object.fromEntries(
    Object.entries(values).filter(([key]) => !names.has(key) && !off.has(KEY_CATALOGUE[key]?.scope ?? '')),
  ) as T;
}
