import { z } from 'zod';
import { keys } from '../../config/index.js';
import { ConfigurationError } from '../../errors/index.js';
import { defineAuthMethod } from '../auth-method.js';
import type { AwsCredential, AwsCredentialIdentity } from '../aws-credential.js';
import { notForHttp } from '../not-for-http.js';

/**
 * An AWS access key: an access key id and its secret, with a session token when the key is
 * temporary (an `ASIA…` id from STS). AWS sources sign with it (Signature Version 4): s3 each
 * request, postgres an IAM database login token. The secret only keys an HMAC and never crosses the
 * network; the session token does, in a header.
 *
 * Checked here, before any connection, as far as the key's form allows: AWS documents an access key
 * id as 16–128 word characters, and a temporary key (`ASIA…`) is useless without its session token.
 * `aws_secret_access_key` and `aws_session_token` are declared secret in the key catalogue, so they
 * are registered the moment the configuration is read.
 *
 * Assuming a role (`aws_role_arn`) needs an STS endpoint, which no test here can run for real, so
 * it is refused by name rather than half built (docs/decisions.md).
 */

/** Access key ids as AWS documents them (IAM AccessKeyMetadata): 16 to 128 word characters. */
const ACCESS_KEY_ID = /^\w{16,128}$/;

export default defineAuthMethod({
  name: 'aws_access_key',
  summary: 'an AWS access key id and secret (and session token for temporary keys): s3 signs each request with it, postgres an IAM database login token (RDS, Aurora)',
  // AWS's guidance for IAM user access keys.
  rotationDays: 90,
  keys: z.object({
    aws_access_key_id: keys.text().refine((v) => ACCESS_KEY_ID.test(v.trim()), { message: 'must be 16 to 128 letters, digits or underscores, as AWS issues them (e.g. AKIA…)' }),
    aws_secret_access_key: keys.text(),
    aws_session_token: keys.optionalText(),
    aws_region: keys.optionalText(),
    aws_role_arn: keys.optionalText(),
    aws_external_id: keys.optionalText(),
  }),
  create(k): AwsCredential {
    if (k.aws_role_arn || k.aws_external_id) {
      const key = k.aws_role_arn ? 'aws_role_arn' : 'aws_external_id';
      throw new ConfigurationError(`invalid configuration: '${key}' is not supported yet; connector-auth signs with the access key itself`, {
        code: 'aws_role_not_supported',
        key,
        hint: `remove '${key}', and give the role's temporary credentials in 'aws_access_key_id', 'aws_secret_access_key' and 'aws_session_token' (e.g. from 'aws sts assume-role')`,
      });
    }
    const accessKeyId = k.aws_access_key_id.trim();
    if (accessKeyId.startsWith('ASIA') && !k.aws_session_token) {
      throw new ConfigurationError(`invalid configuration: 'aws_access_key_id' is a temporary key (ASIA…), which AWS accepts only with its session token`, {
        code: 'aws_session_token_missing',
        key: 'aws_session_token',
        hint: "set 'aws_session_token' to the session token issued with this key",
      });
    }
    const identity: AwsCredentialIdentity = {
      accessKeyId,
      secretAccessKey: k.aws_secret_access_key,
      ...(k.aws_session_token ? { sessionToken: k.aws_session_token } : {}),
    };
    return {
      method: 'aws_access_key',
      description: `aws access key ${accessKeyId}${k.aws_session_token ? ' (temporary)' : ''}`,
      rejectedKey: 'aws_secret_access_key',
      // A session token travels in a header; the secret itself only keys the signature.
      sendsSecret: identity.sessionToken !== undefined,
      accessKeyId,
      region: k.aws_region?.trim(),
      identity: () => identity,
      // The source's AWS SDK signs each request with identity().
      authorize: notForHttp('aws_access_key', 'AWS sources such as s3', "for an HTTP API, choose a method such as bearer, basic or oauth2_client_credentials in 'auth_method'"),
    };
  },
});
