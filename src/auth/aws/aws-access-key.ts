import { z } from 'zod';
import { keyHint, keys } from '../../config/index.js';
import { ConfigurationError } from '../../errors/index.js';
import { defineAuthMethod } from '../auth-method.js';
import type { AwsCredentialIdentity } from '../capabilities.js';
import { awsSessionCredential, type AwsCredential } from './aws-credential.js';
import { externalIdKey, optionalRoleArnKey, roleSessionKeys, roleSessionSettings } from './aws-role-keys.js';
import { roleSession } from './aws-role-session.js';

/**
 * An AWS access key: an access key id and its secret, with a session token when the key is
 * temporary (an `ASIA…` id from STS). AWS sources sign with it (Signature Version 4): s3 each
 * request, postgres an IAM database login token. The secret only keys an HMAC and never crosses the
 * network; the session token does, in a header.
 *
 * With `aws_role_arn` the key signs one thing only, STS AssumeRole (with `aws_external_id` when the
 * role's trust policy asks for one), and the sources sign with the role's temporary credentials,
 * renewed before they expire (aws-role-session.ts): the usual way to reach another account's bucket.
 *
 * Checked here, before any connection, as far as the key's form allows: AWS documents an access key
 * id as 16–128 word characters, and a temporary key (`ASIA…`) is useless without its session token.
 * An S3-compatible server (`endpoint` set) issues its own: MinIO's default is `minioadmin`, s3rver's
 * `S3RVER`, Ceph's 20 characters. There, any id of 3 to 128 visible ASCII characters is taken (MinIO's
 * minimum is 3), save `/` and `,`, which would break the SigV4 Credential field the id goes into.
 * `aws_secret_access_key` and `aws_session_token` are declared secret in the key catalogue, so they
 * are registered the moment the configuration is read.
 */

/** Access key ids as AWS documents them (IAM AccessKeyMetadata): 16 to 128 word characters. */
const ACCESS_KEY_ID = /^\w{16,128}$/;
/** An S3-compatible server's own ids: visible ASCII, no `/` or `,` (the SigV4 Credential field's separators). */
const COMPATIBLE_ACCESS_KEY_ID = /^[\x21-\x2b\x2d\x2e\x30-\x7e]{3,128}$/;

export default defineAuthMethod({
  name: 'aws_access_key',
  summary:
    'an AWS access key id and secret (and session token for temporary keys), or with aws_role_arn the role it assumes through STS: s3 signs each request, postgres an IAM database login token (RDS, Aurora)',
  // AWS's guidance for IAM user access keys.
  rotationDays: 90,
  keys: z.object({
    // Its form depends on who issued it (AWS, or the S3-compatible server at `endpoint`): checked in create().
    aws_access_key_id: keys.text(),
    aws_secret_access_key: keys.text(),
    aws_session_token: keys.optionalText(),
    aws_role_arn: optionalRoleArnKey(),
    aws_external_id: externalIdKey(),
    ...roleSessionKeys,
  }),
  create(k, context): AwsCredential {
    const accessKeyId = k.aws_access_key_id.trim();
    checkAccessKeyId(accessKeyId, context.source.endpoint !== undefined && context.source.endpoint.trim() !== '');
    if (accessKeyId.startsWith('ASIA') && !k.aws_session_token) {
      throw new ConfigurationError(
        `invalid configuration: 'aws_access_key_id' is a temporary key (ASIA…), which AWS accepts only with its session token`,
        {
          code: 'aws_session_token_missing',
          key: 'aws_session_token',
          hint: "set 'aws_session_token' to the session token issued with this key",
        },
      );
    }
    if (k.aws_external_id && !k.aws_role_arn) {
      throw new ConfigurationError(
        `invalid configuration: 'aws_external_id' is sent when assuming a role, but 'aws_role_arn' names none`,
        {
          code: 'aws_external_id_without_role',
          key: 'aws_role_arn',
          hint: "set 'aws_role_arn' to the role whose trust policy asks for this external id, or remove 'aws_external_id'",
        },
      );
    }
    const key: AwsCredentialIdentity = {
      accessKeyId,
      secretAccessKey: k.aws_secret_access_key,
      ...(k.aws_session_token ? { sessionToken: k.aws_session_token } : {}),
    };
    const region = k.aws_region?.trim();

    if (!k.aws_role_arn) {
      return {
        method: 'aws_access_key',
        description: `aws access key ${accessKeyId}${k.aws_session_token ? ' (temporary)' : ''}`,
        rejectedKey: 'aws_secret_access_key',
        // A session token travels in a header; the secret itself only keys the signature.
        sendsSecret: key.sessionToken !== undefined,
        // The source's AWS SDK signs each request with identity().
        awsKeys: { signer: `access key ${accessKeyId}`, sessionKey: undefined, region, identity: async () => key },
      };
    }

    const roleArn = k.aws_role_arn.trim();
    const description = `aws role ${roleArn} (assumed with access key ${accessKeyId})`;
    const session = roleSession({
      roleArn,
      ...roleSessionSettings(k, context.now(), "auth_method 'aws_access_key'"),
      via: { accessKey: key, externalId: k.aws_external_id },
      description,
      context,
    });
    return awsSessionCredential(session, {
      method: 'aws_access_key',
      description,
      signer: `role ${roleArn}`,
      sessionKey: 'aws_role_arn',
      region,
    });
  },
});

function checkAccessKeyId(id: string, compatibleServer: boolean): void {
  if (compatibleServer ? COMPATIBLE_ACCESS_KEY_ID.test(id) : ACCESS_KEY_ID.test(id)) return;
  throw new ConfigurationError(
    compatibleServer
      ? "invalid configuration for auth_method 'aws_access_key': key 'aws_access_key_id' must be 3 to 128 visible characters, without '/' or ','"
      : "invalid configuration for auth_method 'aws_access_key': key 'aws_access_key_id' must be 16 to 128 letters, digits or underscores, as AWS issues them (e.g. AKIA…); an S3-compatible server's own ids are taken when 'endpoint' names it",
    { code: 'malformed_key', key: 'aws_access_key_id', hint: keyHint.set('aws_access_key_id') },
  );
}
