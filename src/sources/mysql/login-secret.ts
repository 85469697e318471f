import { isAccessTokenCredential, isAwsCredential, isPasswordCredential, type Credential } from '../../auth/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import { rdsAuthTokens, rdsRegion } from '../postgres/index.js';
import type { MysqlEndpoint } from './mysql-settings.js';

/**
 * What the mysql source logs in with, from its auth method: the only place the source touches the
 * credential. A password (the `password` method), a cloud access token given as the password
 * (Azure Database for MySQL with Entra ID, Cloud SQL IAM login), an IAM database token for RDS and
 * Aurora MySQL signed with AWS credentials, or nothing (a client certificate alone, `mtls`).
 *
 * Tokens reach the server through the `mysql_clear_password` plugin, the one those services ask
 * for: the source allows that plugin only inside TLS (mysql-source.ts), so `kind` says which
 * credential a refusal is about and whether TLS is needed.
 */
export interface MysqlLoginSecret {
  kind: 'password' | 'access_token' | 'iam_token' | 'none';
  /** Asked at each login: a token is fresh for each connection. */
  password(): Promise<string>;
  /** The key a refused login names. */
  rejectedKey: string;
  /** For an AWS credential: the role's session key, and who signs, for the hint. */
  aws?: { sessionKey?: string; signer: string };
}

export async function loginSecretOf(
  credential: Credential,
  endpoint: MysqlEndpoint,
  secrets: Pick<SecretRegistry, 'register'>,
): Promise<MysqlLoginSecret> {
  if (isPasswordCredential(credential))
    return { kind: 'password', password: async () => credential.password(), rejectedKey: 'password' };
  if (isAccessTokenCredential(credential))
    return { kind: 'access_token', password: () => credential.accessToken(), rejectedKey: credential.rejectedKey };
  if (isAwsCredential(credential)) {
    const region = rdsRegion(endpoint.host, credential.region, 'mysql');
    return {
      kind: 'iam_token',
      password: await rdsAuthTokens(credential, endpoint, region, secrets),
      rejectedKey: credential.sessionKey ?? 'aws_secret_access_key',
      aws: { sessionKey: credential.sessionKey, signer: credential.signer },
    };
  }
  return { kind: 'none', password: async () => '', rejectedKey: credential.rejectedKey };
}
