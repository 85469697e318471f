import { createHash, createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Signature Version 4 as AWS services check it, written from AWS's documentation for the test peers
 * (the s3rver and sts peers' header and query signatures, the IAM database tokens of the postgres tests), so
 * that what the AWS SDK signs is checked by code that is not the SDK's.
 */

/** The signature of `canonical` (a canonical request) for `scope` (`<date>/<region>/<service>/aws4_request`). */
export function sigv4Signature(secret: string, scope: string, amzDate: string, canonical: string): string {
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonical).digest('hex')].join(
    '\n',
  );
  return createHmac('sha256', signingKey(secret, scope)).update(stringToSign).digest('hex');
}

/** `AWS4<secret>` → date → region → service → `aws4_request`, the scope's parts in order. */
function signingKey(secret: string, scope: string): Buffer {
  return scope
    .split('/')
    .reduce<Buffer | string>((key, part) => createHmac('sha256', key).update(part).digest(), `AWS4${secret}`) as Buffer;
}

/**
 * SigV4's canonical request as AWS services compute it: the path exactly as sent (S3 neither
 * normalizes nor encodes it again; STS is only called at `/`), every query parameter RFC 3986-encoded
 * and sorted by name then value, each signed header lowercased with its value trimmed and inner
 * whitespace collapsed, and the payload hash (S3: as declared; STS: of the body as received).
 */
export function canonicalRequest(
  req: IncomingMessage,
  path: string,
  params: [string, string][],
  signedHeaders: string,
  payloadHash: string,
): string {
  const canonicalQuery = params
    .map(([name, value]) => [rfc3986(name), rfc3986(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalHeaders = signedHeaders
    .split(';')
    .map((name) => {
      const values = req.headersDistinct[name.toLowerCase()] ?? [];
      return `${name.toLowerCase()}:${values.map((value) => value.trim().replace(/\s+/g, ' ')).join(',')}\n`;
    })
    .join('');
  return [req.method, path, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join('\n');
}

/** Query parameters decoded, in order; a name without `=` has the empty value (no `+` for space: SigV4 clients encode it %20). */
export function parseQuery(rawQuery: string): [string, string][] {
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  return rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      return at < 0 ? [decode(pair), ''] : [decode(pair.slice(0, at)), decode(pair.slice(at + 1))];
    });
}

/** RFC 3986 percent-encoding, as SigV4 encodes each query name and value and each path segment. */
export function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
