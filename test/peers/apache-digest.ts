import { createHash } from 'node:crypto';
import { apacheHas, startApache, type ApachePeer } from './apache.js';

/**
 * A real HTTP Digest server: Apache (Debian's apache2-bin) with mod_auth_digest, which answers MD5
 * only (RFC 2617's, qop=auth). Its users live in an htdigest file written here in htdigest's format,
 * `user:realm:MD5(user:realm:password)` (apache2-utils, which has the htdigest command, is not needed
 * for one line). `nonceLifetimeSeconds` short: a nonce goes stale within the test, and Apache says
 * so with `stale=true` (a nonce about to run out is replaced in each answer's Authentication-Info
 * `nextnonce`, so only one left unused that long goes stale). `AuthDigestNcCheck On`: an answer
 * whose `nc` is not above the last one for its nonce is refused as a replay (error log:
 * "nonce-count check failed").
 */

export const DIGEST_REALM = 'connector-auth digest';

export async function start(options: {
  users: Record<string, string>;
  files: Record<string, string>;
  nonceLifetimeSeconds?: number;
}): Promise<ApachePeer> {
  if (!apacheHas(['auth_digest', 'authn_file']))
    throw new Error('Apache with mod_auth_digest is missing: npm test installs apache2-bin');
  const htdigest = Object.entries(options.users)
    .map(([user, password]) => `${user}:${DIGEST_REALM}:${md5(`${user}:${DIGEST_REALM}:${password}`)}\n`)
    .join('');
  return startApache({
    prefix: 'connector-auth-apache-digest-',
    modules: ['auth_digest', 'authn_file'],
    files: options.files,
    privateFiles: { htdigest },
    directory: (dir) => `  AuthType Digest
  AuthName "${DIGEST_REALM}"
  AuthDigestDomain /
  AuthDigestProvider file
  AuthUserFile "${dir}/htdigest"
  AuthDigestNonceLifetime ${options.nonceLifetimeSeconds ?? 300}
  AuthDigestNcCheck On`,
  });
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');
