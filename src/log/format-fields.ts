import { redactedJson, type SecretRegistry } from '../secrets/index.js';

/**
 * The fields of a log line, as every sink writes them after the message: one space and one JSON
 * object, or nothing when there are none. Each value is redacted before it is encoded (redact first,
 * then shape), so a Buffer field or a JSON-escaped secret cannot slip past the redactor by its form.
 */
export function formatFields(fields: Record<string, unknown> | undefined, registry: SecretRegistry): string {
  return fields && Object.keys(fields).length > 0 ? ` ${redactedJson(fields, registry)}` : '';
}
