import { createHmac, randomBytes } from 'node:crypto';
import type { OutgoingRequest } from '../capabilities.js';

/**
 * OAuth 1.0a request signatures (RFC 5849 §3.4), HMAC-SHA1 or HMAC-SHA256 as NetSuite's token-based
 * authentication wants the latter: the signature base string of the method, the base URI and every
 * parameter (the query's, a form body's and the protocol's own), keyed by the two secrets.
 */

export type OAuth1SignatureMethod = 'HMAC-SHA256' | 'HMAC-SHA1';

export interface OAuth1Secrets {
  consumerKey: string;
  consumerSecret: string;
  token: string | undefined;
  tokenSecret: string | undefined;
  realm: string | undefined;
  signatureMethod: OAuth1SignatureMethod;
}

/** RFC 3986 unreserved characters stay, every other byte is %XX in upper case (RFC 5849 §3.6). */
export function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The `Authorization: OAuth …` value for one request, with a fresh nonce and the current time. */
export function oauth1Header(request: OutgoingRequest, o: OAuth1Secrets, nowMs: number): string {
  const protocol: [string, string][] = [
    ['oauth_consumer_key', o.consumerKey],
    ...(o.token ? ([['oauth_token', o.token]] as [string, string][]) : []),
    ['oauth_signature_method', o.signatureMethod],
    ['oauth_timestamp', String(Math.floor(nowMs / 1000))],
    ['oauth_nonce', randomBytes(16).toString('hex')],
    ['oauth_version', '1.0'],
  ];
  const signature = sign(baseString(request, protocol), o);
  const fields = [...protocol, ['oauth_signature', signature]].map(([k, v]) => `${k}="${percentEncode(v!)}"`);
  // The realm is not signed (§3.4.1.3.1), and goes first, as NetSuite's examples put it.
  return `OAuth ${[...(o.realm !== undefined ? [`realm="${percentEncode(o.realm)}"`] : []), ...fields].join(', ')}`;
}

/** §3.4.1: METHOD & base URI & normalized parameters, each percent-encoded. */
export function baseString(request: OutgoingRequest, protocol: readonly [string, string][]): string {
  const parameters = [...request.url.searchParams, ...formParameters(request), ...protocol]
    .map(([k, v]) => [percentEncode(k), percentEncode(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak === bk ? compare(av, bv) : compare(ak, bk)))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  return [request.method.toUpperCase(), baseUri(request.url), parameters].map(percentEncode).join('&');
}

/** §3.4.1.2: scheme and host in lower case, the port only when not the scheme's default, no query. */
function baseUri(url: URL): string {
  // URL already lower-cases scheme and host and drops a default port.
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** §3.4.1.3.1: a form body's parameters are signed; any other body is not. */
function formParameters(request: OutgoingRequest): [string, string][] {
  const { body } = request;
  if (body instanceof URLSearchParams) return [...body];
  const type = request.headers.get('content-type') ?? '';
  if (typeof body === 'string' && /^application\/x-www-form-urlencoded\b/i.test(type))
    return [...new URLSearchParams(body)];
  return [];
}

/** Byte order, as the RFC sorts (not the locale's). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sign(base: string, o: OAuth1Secrets): string {
  const key = `${percentEncode(o.consumerSecret)}&${percentEncode(o.tokenSecret ?? '')}`;
  const hash = o.signatureMethod === 'HMAC-SHA1' ? 'sha1' : 'sha256';
  return createHmac(hash, key).update(base).digest('base64');
}
