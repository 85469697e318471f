import { z } from 'zod';

/**
 * configuration.json holds strings only; these turn a string key into the type a method needs.
 * Every message says what the value must be and never echoes it (it may be a secret). The parser
 * prefixes the key name, so messages read "key 'port' must be an integer from 1 to 65535".
 */

type Issue = { issues: { push(issue: { code: 'custom'; message: string; input: unknown }): void } };
const reject = (ctx: Issue, message: string, input: unknown): never => {
  ctx.issues.push({ code: 'custom', message, input });
  return z.NEVER;
};

/** A required, non-empty string. */
export const text = () => z.string({ error: 'is missing' }).refine((v) => v.length > 0, { message: 'is empty' });

/** An optional string: absent and empty both mean "not given". */
export const optionalText = () =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : v));

/** A string with a default when absent or empty. */
export const textWithDefault = (fallback: string) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === '' ? fallback : v));

export const integer = (options: { min: number; max: number; default?: number }) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return options.default ?? reject(ctx, 'is missing', v);
      const n = Number(v.trim());
      return Number.isInteger(n) && n >= options.min && n <= options.max
        ? n
        : reject(ctx, `must be a whole number from ${options.min} to ${options.max}`, v);
    });

export const positiveNumber = (options: { max: number; default: number }) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return options.default;
      const n = Number(v.trim());
      return Number.isFinite(n) && n > 0 && n <= options.max
        ? n
        : reject(ctx, `must be a number above 0 and at most ${options.max}`, v);
    });

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);
export const boolean = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return fallback;
      const word = v.trim().toLowerCase();
      return TRUE.has(word) ? true : FALSE.has(word) ? false : reject(ctx, 'must be "true" or "false"', v);
    })
    // The values a form offers (describeConfiguration reads them from the JSON Schema); the parser also takes yes/no/1/0/on/off.
    .meta({ enum: ['true', 'false'] });

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T, fallback?: T[number]) =>
  z
    .string()
    .optional()
    .transform((v, ctx): T[number] => {
      if (v === undefined || v === '') return fallback ?? reject(ctx, `is missing; use one of ${values.join(', ')}`, v);
      return (values as readonly string[]).includes(v) ? v : reject(ctx, `must be one of ${values.join(', ')}`, v);
    })
    // The choices a form offers: describeConfiguration reads them from the JSON Schema.
    .meta({ enum: [...values] });

/** An absolute URL with one of the given schemes; returned as a URL object. */
export const url = (schemes: readonly string[] = ['https:', 'http:']) =>
  z
    .string({ error: 'is missing' })
    .transform((v, ctx) => (v === '' ? reject(ctx, 'is empty', v) : absoluteUrl(v, schemes, ctx)));

/** An optional absolute URL: absent and empty both mean "not given". */
export const optionalUrl = (schemes: readonly string[] = ['https:', 'http:']) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => (v === undefined || v.trim() === '' ? undefined : absoluteUrl(v, schemes, ctx)));

function absoluteUrl(v: string, schemes: readonly string[], ctx: Issue): URL {
  let parsed: URL;
  try {
    parsed = new URL(v);
  } catch {
    return reject(ctx, 'must be an absolute URL such as https://api.example.com', v);
  }
  if (!schemes.includes(parsed.protocol))
    return reject(ctx, `must start with ${schemes.map((s) => s.replace(':', '://')).join(' or ')}`, v);
  // A credential in the URL would go wherever the URL is printed, logged or followed; its parts are
  // registered as secrets when the configuration is read (register-secrets.ts), so this message
  // and any other that quotes the URL show them redacted.
  if (parsed.username !== '' || parsed.password !== '')
    return reject(
      ctx,
      "must not hold a user name or password (user:password@host); give the credential in the auth method's keys",
      v,
    );
  return parsed;
}

/** A comma-separated list of HTTP statuses, e.g. "200,204". */
export const statusList = (fallback: readonly number[]) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return [...fallback];
      const parts = v.split(',').map((p) => Number(p.trim()));
      return parts.every((n) => Number.isInteger(n) && n >= 100 && n <= 599)
        ? parts
        : reject(ctx, 'must be HTTP statuses separated by commas, e.g. 200,204', v);
    });

/** An ISO 8601 date or date-time; returned as a Date. */
export const isoDate = () =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      const time = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v.trim()) ? Date.parse(v.trim()) : NaN;
      return Number.isNaN(time) ? reject(ctx, 'must be an ISO 8601 date such as 2026-01-31', v) : new Date(time);
    });
