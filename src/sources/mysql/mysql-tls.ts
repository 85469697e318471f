import { ConfigurationError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import { warnTlsUnverified, warnUnencrypted, type TlsSettings } from '../../network/index.js';
import type { MysqlLoginSecret } from './login-secret.js';
import type { MysqlEndpoint } from './mysql-settings.js';
import { refuseTlsOnlyKeys } from '../tls-off-refusals.js';

/** mysql2's `ssl` option: Node's TLS material plus whether the chain and the host name are checked. */
export interface MysqlSslOptions {
  ca?: string;
  cert?: string;
  key?: string;
  rejectUnauthorized: boolean;
  verifyIdentity: boolean;
}

/**
 * The TLS of a mysql connection, from `mysql_tls` and the common `tls_*` keys, after refusing the
 * combinations that cannot do what they say; logs what a weaker choice gives up, every run.
 * Undefined: no TLS.
 */
export function mysqlSslOptions(
  endpoint: MysqlEndpoint,
  tls: TlsSettings,
  login: MysqlLoginSecret,
  log: Pick<Logger, 'warning'>,
): MysqlSslOptions | undefined {
  const { host } = endpoint;
  if (endpoint.tls === 'none') {
    refuseTlsOnlyKeys(
      { source: 'mysql', key: 'mysql_tls', value: 'none', turnOn: "set 'mysql_tls' to required" },
      { clientCertificate: Boolean(tls.cert), skipVerify: !tls.verify },
    );
    if (login.kind === 'access_token' || login.kind === 'iam_token') {
      // A token reaches the server in clear text (mysql_clear_password): never outside TLS.
      throw new ConfigurationError(
        `invalid configuration for the mysql source: a token login sends the token as a clear-text password, and mysql_tls=none`,
        {
          code: 'token_login_without_tls',
          key: 'mysql_tls',
          hint: "set 'mysql_tls' to required, with 'tls_ca_certificate' set to the service's CA bundle",
        },
      );
    }
    warnUnencrypted(log, host, 'the login exchange, queries and results', 'mysql_tls=none');
    return undefined;
  }
  if (!tls.verify) warnTlsUnverified(log, host, 'the credential');
  return {
    ...(tls.ca ? { ca: tls.ca } : {}),
    ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
    rejectUnauthorized: tls.verify,
    verifyIdentity: tls.verify,
  };
}
