import { ConfigurationError } from '../../errors/index.js';
import type { RawConfiguration } from '../file/index.js';
import { KEY_CATALOGUE } from './key-catalogue.js';

/**
 * A value that its key carries, as written, into an HTTP header, a URL, a connection string or a
 * protocol's command line must be one that place can carry. A token pasted with a line break in
 * it, or with a character outside Latin-1, would otherwise fail later as a request error that
 * names a header, or as a network failure that blames `base_url`. Refused here, where the key's
 * schema is read, it is a configuration error (exit 2) that names the key and says what is wrong,
 * never showing the value. Whitespace at either end is left alone: headers and URLs drop it.
 */
export function refuseUncarriable(keys: Iterable<string>, raw: RawConfiguration, scope: string): void {
  for (const key of keys) {
    const carriedIn = KEY_CATALOGUE[key]?.carriedIn;
    const value = raw[key];
    if (carriedIn === undefined || typeof value !== 'string') continue;
    const problem = carriageProblem(value, carriedIn);
    if (problem === undefined) continue;
    const where = carriedIn === 'header' ? 'an HTTP header' : 'a URL, a connection string or a protocol line';
    throw new ConfigurationError(
      `invalid configuration for ${scope}: key '${key}' holds ${problem}, which ${where} cannot carry`,
      {
        code: 'uncarriable_value',
        key,
        hint: `check '${key}': set it again without the ${problem.replace(/^an? /, '')} (a copy and paste often brings one)`,
      },
    );
  }
}

/**
 * What in the value, if anything, the place cannot carry ("a line break", …), for a schema whose key
 * goes into a header only in some configurations (an API key in a header, not in a query string).
 */
export function carriageProblem(raw: string, carriedIn: 'header' | 'line'): string | undefined {
  const value = raw.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  if (/[\r\n]/.test(value)) return 'a line break';
  if (value.includes('\0')) return 'a NUL character';
  if (carriedIn === 'line') return undefined;
  // What Node's HTTP client (and RFC 9110's field-value) accepts: tab, visible ASCII and space, obs-text.
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return 'a control character';
    if (code > 0xff) return 'a character outside Latin-1';
  }
  return undefined;
}
