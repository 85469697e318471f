import { inspect } from 'node:util';

/**
 * The configuration object handed to a connector holds real secret values (it has to: the connector
 * may need them). Printing it with `console.log`, `util.inspect` or `JSON.stringify` shows
 * `<redacted:KEY>` for each secret key instead, so the easy mistake is harmless even before the
 * output gate redacts.
 */
export function protectConfiguration<T extends object>(configuration: T, secretKeys: ReadonlySet<string>): Readonly<T> {
  const masked = (): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(configuration).map(([k, v]) => [k, secretKeys.has(k) && v !== undefined ? `<redacted:${k}>` : v]),
    );
  Object.defineProperties(configuration, {
    toJSON: { value: masked, enumerable: false },
    [inspect.custom]: {
      value: (_depth: number, options: object) => inspect(masked(), options),
      enumerable: false,
    },
  });
  return Object.freeze(configuration);
}
