import { ConfigurationError } from '../errors/index.js';
import type { RawConfiguration } from './file/index.js';
import { keyHint } from './key-place.js';

/**
 * The templates' stand-ins for values only the author has: a whole value in angle brackets
 * (`<YOUR_API_TOKEN>`, and the `<redacted:KEY>` that printed output shows in a secret's place), or
 * an upper-case `YOUR_…` marker inside one (`AKIA_YOUR_ACCESS_KEY_ID`). None is ever a real
 * credential, so a configuration that still holds one is refused before anything is sent, naming
 * the key, rather than failing later as a DNS error or a 401 about something else.
 */
const WHOLE = /^<[^<>\r\n]{1,200}>$/;
const MARKER = /(?:^|[^A-Za-z])YOUR_[A-Z]/;

export function isPlaceholder(value: string): boolean {
  return WHOLE.test(value.trim()) || MARKER.test(value);
}

/** Throws a ConfigurationError (exit 2) naming the first key of `read`, in file order, that holds a placeholder. */
export function refusePlaceholders(raw: RawConfiguration, read: Iterable<string>): void {
  const wanted = new Set(read);
  const keys = Object.keys(raw).filter((key) => wanted.has(key) && isPlaceholder(raw[key]!));
  if (keys.length === 0) return;
  const [first] = keys as [string, ...string[]];
  const others =
    keys.length > 1
      ? ` (so do ${keys
          .slice(1)
          .map((k) => `'${k}'`)
          .join(', ')})`
      : '';
  throw new ConfigurationError(
    `invalid configuration: key '${first}' still holds the template's placeholder${others}`,
    {
      code: 'placeholder_value',
      key: first,
      hint: keyHint.replace(first),
    },
  );
}
