import type { ConfigurationField } from '../../../project/index.js';

/** One form field of the partner SDK's FormField message, made from a configuration key. */

export interface FormFieldMessage {
  name: string;
  label: string;
  required?: boolean;
  description?: string;
  text_field?: 'PlainText' | 'Password';
  dropdown_field?: { dropdown_field: string[] };
  toggle_field?: Record<string, never>;
  conditional_fields?: {
    condition: { condition_field: string; string_value?: string; bool_value?: boolean };
    fields: FormFieldMessage[];
  };
  descriptive_dropdown_fields?: { descriptive_dropdown_field: { value: string; label: string; description: string }[] };
  default_value?: string;
}

/** A key whose only values are "true" and "false" (the schema reads them as a boolean). */
const isSwitch = (choices: string[] | undefined) =>
  choices?.length === 2 && choices.includes('true') && choices.includes('false');

export function formField(field: ConfigurationField): FormFieldMessage {
  const type: Partial<FormFieldMessage> = isSwitch(field.choices)
    ? { toggle_field: {} }
    : field.choices
      ? { dropdown_field: { dropdown_field: field.choices } }
      : { text_field: field.secret ? 'Password' : 'PlainText' };
  return {
    name: field.key,
    label: labelOf(field.key),
    required: field.required,
    ...(field.description ? { description: field.description } : {}),
    ...type,
    ...(field.default !== undefined ? { default_value: field.default } : {}),
  };
}

const WORDS: Record<string, string> = {
  url: 'URL',
  uri: 'URI',
  id: 'ID',
  tls: 'TLS',
  ssh: 'SSH',
  aws: 'AWS',
  api: 'API',
  gcp: 'GCP',
  sts: 'STS',
  ca: 'CA',
  arn: 'ARN',
  pkcs12: 'PKCS#12',
  dpop: 'DPoP',
  http: 'HTTP',
  jwt: 'JWT',
  oauth2: 'OAuth 2.0',
  sslmode: 'SSL mode',
};

/** `base_url` → "Base URL". */
export function labelOf(key: string): string {
  const words = key
    .split('_')
    .filter(Boolean)
    .map((w) => WORDS[w] ?? w);
  const first = words[0] ?? key;
  return [
    first === first.toLowerCase() ? first.charAt(0).toUpperCase() + first.slice(1) : first,
    ...words.slice(1),
  ].join(' ');
}
