import { secrets as processRegistry, type SecretRegistry } from './secret-registry.js';

/**
 * Redact first, then shape. Every place that folds a message onto one line, cuts it to a length or
 * encodes it again (a JSON log line, `--json` output) goes through here, because shaping first
 * hides a secret from the redactor: a multi-line secret folded onto one line, or a long token cut
 * at 200 characters, no longer matches any registered form, and a secret another program had
 * already JSON-escaped comes out escaped twice. The output gate still redacts every printed byte;
 * this makes sure what reaches it is not a shape the gate cannot recognise.
 */

/**
 * A service's own words (an error body's message, a driver's error) as one bounded line of ours:
 * redacted, white space (line breaks included) folded to one space, redacted again (a secret that
 * holds single spaces can appear only once the runs are folded), then cut at `max` characters.
 * Undefined for anything but a non-empty string.
 */
export function redactedLine(text: unknown, max = 200, registry: SecretRegistry = processRegistry): string | undefined {
  if (typeof text !== 'string' || text.length === 0) return undefined;
  const flat = registry.redact(registry.redact(text).replace(/\s+/g, ' ').trim());
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/**
 * `JSON.stringify(value)` with every string redacted before it is escaped, and bytes (a Buffer, a
 * typed array, an array of byte values) that spell a secret replaced by their redacted text, so
 * the line stays valid JSON; then the whole line is redacted once more, for a secret split across
 * values or held by a key.
 */
export function redactedJson(value: unknown, registry: SecretRegistry = processRegistry, space?: number): string {
  const json = JSON.stringify(value, (_key, member: unknown) => redactMember(member, registry), space) as
    string | undefined;
  return json === undefined ? 'null' : registry.redact(json);
}

/** Byte arrays shorter than this are not read as text (a pair of small numbers is not a secret). */
const MIN_BYTES_AS_TEXT = 4;

function redactMember(member: unknown, registry: SecretRegistry): unknown {
  if (typeof member === 'string') return registry.redact(member);
  if (typeof member === 'bigint') return member.toString();
  const bytes = bytesOf(member);
  if (bytes === undefined || bytes.length < MIN_BYTES_AS_TEXT) return member;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return registry.contains(text) ? registry.redact(text) : member;
}

/** The bytes of a Buffer (as its toJSON gives it), a typed array or an array of byte values. */
function bytesOf(member: unknown): Uint8Array | undefined {
  if (ArrayBuffer.isView(member)) return new Uint8Array(member.buffer, member.byteOffset, member.byteLength);
  if (member === null || typeof member !== 'object') return undefined;
  const candidate = Array.isArray(member)
    ? member
    : (member as { type?: unknown; data?: unknown }).type === 'Buffer'
      ? (member as { data?: unknown }).data
      : undefined;
  if (!Array.isArray(candidate) || !candidate.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) return undefined;
  return Uint8Array.from(candidate as number[]);
}
