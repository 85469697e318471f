/**
 * A signed (presigned) URL carries its credential in the query string and, in most formats, its own
 * expiry. Reading the expiry lets an expired link fail before any request, with the time it died;
 * knowing the signature parameters lets the redactor hide each of them even when a query is split.
 */

export type SignedUrlFormat = 'aws-sigv4' | 'google-v4' | 'azure-sas' | 'cloudfront-policy' | 'expires-epoch';

export interface SignedUrlExpiry {
  format: SignedUrlFormat;
  /** When the signature was made, where the format says (AWS, Google). */
  signedAt?: Date;
  expiresAt: Date;
}

const FORMAT_NAMES: Record<SignedUrlFormat, string> = {
  'aws-sigv4': 'AWS Signature Version 4 (X-Amz-Date + X-Amz-Expires)',
  'google-v4': 'Google V4 signature (X-Goog-Date + X-Goog-Expires)',
  'azure-sas': 'Azure shared access signature (se=)',
  'cloudfront-policy': 'CloudFront signed URL (Policy DateLessThan)',
  'expires-epoch': 'signature with Expires= (AWS V2, Google V2 or CloudFront)',
};

export function describeSignedUrlFormat(format: SignedUrlFormat): string {
  return FORMAT_NAMES[format];
}

/** The expiry a URL states about itself, or undefined when its format does not say. */
export function readSignedUrlExpiry(url: URL): SignedUrlExpiry | undefined {
  const get = caseInsensitiveParams(url);

  const amzDate = get('x-amz-date');
  const amzExpires = get('x-amz-expires');
  if (amzDate && amzExpires) return fromDateAndSeconds('aws-sigv4', amzDate, amzExpires);

  const googDate = get('x-goog-date');
  const googExpires = get('x-goog-expires');
  if (googDate && googExpires) return fromDateAndSeconds('google-v4', googDate, googExpires);

  const se = get('se');
  if (se && get('sig')) {
    const time = Date.parse(se);
    if (!Number.isNaN(time)) return { format: 'azure-sas', expiresAt: new Date(time) };
  }

  const policy = get('policy');
  if (policy && get('signature')) {
    const epoch = cloudFrontPolicyExpiry(policy);
    if (epoch !== undefined) return { format: 'cloudfront-policy', expiresAt: new Date(epoch * 1000) };
  }

  const expires = get('expires');
  if (expires && /^\d{9,11}$/.test(expires) && (get('signature') || get('x-goog-signature')))
    return { format: 'expires-epoch', expiresAt: new Date(Number(expires) * 1000) };
  return undefined;
}

/** Query parameters that carry (part of) the credential in the formats above. */
const SIGNATURE_PARAMETERS = new Set([
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'x-goog-signature',
  'x-goog-credential',
  'sig',
  'signature',
  'policy',
  'awsaccesskeyid',
  'googleaccessid',
]);

/**
 * The parts of a signed URL that are secret on their own: the whole query (as configured and as
 * the URL object re-encodes it) and each signature parameter's value. Register each with the
 * secret registry; the URL as a whole is registered already as the value of `signed_url`.
 */
export function signedUrlSecretParts(configured: string, url: URL): string[] {
  const parts = new Set<string>();
  const queryStart = configured.indexOf('?');
  if (queryStart >= 0) parts.add(configured.slice(queryStart + 1).split('#')[0]!);
  if (url.search.length > 1) parts.add(url.search.slice(1));
  for (const [name, value] of url.searchParams) {
    if (SIGNATURE_PARAMETERS.has(name.toLowerCase()) && value) {
      parts.add(value);
      parts.add(encodeURIComponent(value));
    }
  }
  return [...parts].filter((part) => part.length > 0);
}

function caseInsensitiveParams(url: URL): (name: string) => string | undefined {
  const map = new Map<string, string>();
  for (const [name, value] of url.searchParams) if (!map.has(name.toLowerCase())) map.set(name.toLowerCase(), value);
  return (name) => map.get(name);
}

/** AWS and Google write the signing time as "20240131T235959Z" and the lifetime in seconds. */
function fromDateAndSeconds(format: SignedUrlFormat, stamp: string, seconds: string): SignedUrlExpiry | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(stamp);
  if (!match || !/^\d+$/.test(seconds)) return undefined;
  const [, y, mo, d, h, mi, s] = match;
  const signedAt = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
  return { format, signedAt, expiresAt: new Date(signedAt.getTime() + Number(seconds) * 1000) };
}

/** CloudFront's custom policy: URL-safe base64 ('-', '_', '~') of JSON with DateLessThan. */
function cloudFrontPolicyExpiry(policy: string): number | undefined {
  try {
    const json = Buffer.from(policy.replace(/-/g, '+').replace(/_/g, '=').replace(/~/g, '/'), 'base64').toString(
      'utf8',
    );
    const parsed = JSON.parse(json) as {
      Statement?: { Condition?: { DateLessThan?: { 'AWS:EpochTime'?: unknown } } }[];
    };
    const epoch = parsed.Statement?.[0]?.Condition?.DateLessThan?.['AWS:EpochTime'];
    return typeof epoch === 'number' ? epoch : undefined;
  } catch {
    return undefined;
  }
}
