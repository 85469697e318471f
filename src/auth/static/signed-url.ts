import { z } from 'zod';
import { keys } from '../../config/index.js';
import { ConfigurationError } from '../../errors/index.js';
import {
  describeSignedUrlFormat,
  describeUrl,
  isoDate,
  readSignedUrlExpiry,
  signedUrlSecretParts,
} from '../../network/index.js';
import { defineAuthMethod } from '../auth-method.js';

/** Below this much time left, a signed URL may die during the sync: say so at the start. */
const SHORT_LIFE_MS = 5 * 60_000;

/**
 * A presigned URL (S3, Google Cloud Storage, Azure SAS, CloudFront): the URL is the credential, as
 * a whole. Nothing is added to requests; the signature is in the query string, which no message or
 * log line shows (`describeUrl` keeps scheme, host and path). Where the URL states its own expiry,
 * an expired one fails here, before any request, with the time it expired.
 */
export default defineAuthMethod({
  name: 'signed_url',
  summary: 'Signed URL: a presigned link whose query string is the credential (S3, GCS, Azure SAS, CloudFront)',
  keys: z.object({ signed_url: urlAsConfigured(['https:', 'http:']) }),
  create({ signed_url: { url, configured } }, context) {
    // The configured value is registered whole already; its query and signature alone are secrets too.
    context.secrets.register('signed_url', url.href);
    for (const part of signedUrlSecretParts(configured, url)) context.secrets.register('signed_url', part);

    const target = describeUrl(url);
    const expiry = readSignedUrlExpiry(url);
    if (expiry) {
      const left = expiry.expiresAt.getTime() - context.now();
      if (left <= 0) {
        throw new ConfigurationError(
          `invalid configuration for auth_method 'signed_url': the signed URL for ${target} expired at ${isoDate(expiry.expiresAt)} (${describeSignedUrlFormat(expiry.format)})`,
          {
            code: 'signed_url_expired',
            key: 'signed_url',
            hint: "generate a new signed URL and set it in 'signed_url'",
          },
        );
      }
      const minutes = Math.floor(left / 60_000);
      const message = `the signed URL for ${target} expires at ${isoDate(expiry.expiresAt)} (in ${minutes} minute${minutes === 1 ? '' : 's'})`;
      if (left < SHORT_LIFE_MS) context.log.warning(`${message}: a long sync may outlive it`);
      else context.log.debug(message);
    } else {
      context.log.debug(
        `the signed URL for ${target} does not state its expiry; the probe will tell whether it is still valid`,
      );
    }

    return {
      method: 'signed_url',
      description: 'signed URL',
      rejectedKey: 'signed_url',
      // The query string is the credential: over plain http anyone on the path could reuse it.
      sendsSecret: true,
      signedUrl: { read: () => new URL(url) },
    };
  },
});

/**
 * The URL, with the text it was configured as: its query as typed (before the URL parser encodes
 * it) is what a message could repeat, so its parts are registered as secrets too.
 */
function urlAsConfigured(schemes: readonly string[]) {
  const url = keys.url(schemes);
  return z
    .string()
    .optional()
    .transform((configured, ctx) => {
      const parsed = url.safeParse(configured);
      if (parsed.success) return { url: parsed.data, configured: configured! };
      for (const issue of parsed.error.issues)
        ctx.issues.push({ code: 'custom', message: issue.message, input: configured });
      return z.NEVER;
    });
}
