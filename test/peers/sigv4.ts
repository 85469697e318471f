import { createHash, createHmac } from 'node:crypto';

/**
 * Signature Version 4 as AWS services check it, written from AWS's documentation for the test peers
 * (the s3rver peer's header and query signatures, the IAM database tokens of the postgres tests), so
 * that what the AWS SDK signs is checked by code that is not the SDK's.
 */

/** The signature of `canonical` (a canonical request) for `scope` (`<date>/<region>/<service>/aws4_request`). */
export function sigv4Signature(secret: string, scope: string, amzDate: string, canonical: string): string {
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  return createHmac('sha256', signingKey(secret, scope)).update(stringToSign).digest('hex');
}

/** `AWS4<secret>` → date → region → service → `aws4_request`, the scope's parts in order. */
function signingKey(secret: string, scope: string): Buffer {
  return scope.split('/').reduce<Buffer | string>((key, part) => createHmac('sha256', key).update(part).digest(), `AWS4${secret}`) as Buffer;
}
