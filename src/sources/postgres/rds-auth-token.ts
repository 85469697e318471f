import { quietAwsSdkNodeVersionWarning, type AwsKeysCapability } from '../../auth/index.js';
import { ConfigurationError, importOptionalPackage } from '../../errors/index.js';
import type { SecretRegistry } from '../../secrets/index.js';

/**
 * IAM database authentication for Amazon RDS and Aurora (PostgreSQL, and MySQL through sources/mysql): the password is a token the AWS
 * credentials (a key, or a role's session) sign locally (Signature Version 4 for the `rds-db` service, valid 15 minutes) for one
 * host, port and database user. Nothing is asked of AWS to make it; the database checks it with IAM
 * at login. @aws-sdk/rds-signer signs it, imported when a postgres source uses an AWS method.
 *
 * A token is signed for each login, so a pooled connection opened an hour into a sync never logs in
 * with an expired one. Each token is registered as a secret the moment it exists: for its 15 minutes
 * it is as good as a password.
 */

export interface RdsLogin {
  host: string;
  port: number;
  user: string;
}

/** `<name>.<id>.<region>.rds.amazonaws.com` (or `.com.cn`): RDS and Aurora endpoints carry their region. */
const RDS_HOST = /\.([a-z]{2}(?:-[a-z]+)+-\d+)\.rds\.amazonaws\.com(?:\.cn)?$/i;

/** The region to sign for: `aws_region`, else the one an RDS endpoint's host name carries. */
export function rdsRegion(host: string, configured: string | undefined, source = 'postgres'): string {
  const region = configured?.trim() || RDS_HOST.exec(host)?.[1]?.toLowerCase();
  if (region) return region;
  throw new ConfigurationError(
    `invalid configuration for the ${source} source: an IAM database login signs its token for a region, and '${host}' does not name one`,
    {
      code: 'aws_region_missing',
      key: 'aws_region',
      hint: "set 'aws_region' to the database's region (e.g. us-east-1)",
    },
  );
}

/** A function that signs a fresh token at each call, for pg's `password` (and each mysql login). */
export async function rdsAuthTokens(
  credential: AwsKeysCapability,
  login: RdsLogin,
  region: string,
  secrets: Pick<SecretRegistry, 'register'>,
): Promise<() => Promise<string>> {
  quietAwsSdkNodeVersionWarning();
  const { Signer } = await importOptionalPackage(
    '@aws-sdk/rds-signer',
    'an AWS auth_method with a database source (an RDS IAM token)',
    () => import('@aws-sdk/rds-signer'),
  );
  // Credentials given, so the SDK's own chain (environment, ~/.aws) is never consulted.
  const signer = new Signer({
    hostname: login.host,
    port: login.port,
    username: login.user,
    region,
    credentials: () => credential.identity(),
  });
  return async () => {
    const token = await signer.getAuthToken();
    secrets.register('rds_auth_token', token);
    return token;
  };
}
