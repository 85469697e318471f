import type { CredentialFor } from '../source-definition.js';
import type { SecretRegistry } from '../../secrets/index.js';
import { rdsAuthTokens, rdsRegion } from '../postgres/index.js';
import type { MysqlEndpoint } from './mysql-settings.js';

/**
 * What the mysql source logs in with, from the credential's capability: the only place the source
 * touches the credential. A password, a cloud access token given as the password (Azure Database
 * for MySQL with Entra ID, Cloud SQL IAM login), an IAM database token for RDS and Aurora MySQL
 * signed with AWS keys, or nothing (a client certificate alone).
 *
 * Tokens reach the server through the `mysql_clear_password` plugin, the one those services ask
 * for: the source allows that plugin only inside TLS (mysql-source.ts), so `kind` says which
 * credential a refusal is about and whether TLS is needed.
 */

/** What the source can log in with, any one of them, in order of preference. */
export const MYSQL_NEEDS = ['password', 'bearerToken', 'awsKeys', 'clientCertificate'] as const;
export type MysqlCredential = CredentialFor<(typeof MYSQL_NEEDS)[number]>;

export interface MysqlLoginSecret {
  kind: 'password' | 'access_token' | 'iam_token' | 'none';
  /** Asked at each login: a token is fresh for each connection. */
  password(): Promise<string>;
  /** The key a refused login names. */
  rejectedKey: string;
  /** For AWS keys: the role's session key, and who signs, for the hint. */
  aws?: { sessionKey?: string; signer: string };
}

export async function loginSecretOf(
  credential: MysqlCredential,
  endpoint: MysqlEndpoint,
  secrets: Pick<SecretRegistry, 'register'>,
): Promise<MysqlLoginSecret> {
  const { password, bearerToken, awsKeys } = credential;
  if (password) return { kind: 'password', password: async () => password.read(), rejectedKey: 'password' };
  if (bearerToken)
    return { kind: 'access_token', password: () => bearerToken.read(), rejectedKey: credential.rejectedKey };
  if (awsKeys) {
    const region = rdsRegion(endpoint.host, awsKeys.region, 'mysql');
    return {
      kind: 'iam_token',
      password: await rdsAuthTokens(awsKeys, endpoint, region, secrets),
      rejectedKey: awsKeys.sessionKey ?? 'aws_secret_access_key',
      aws: { sessionKey: awsKeys.sessionKey, signer: awsKeys.signer },
    };
  }
  return { kind: 'none', password: async () => '', rejectedKey: credential.rejectedKey };
}
