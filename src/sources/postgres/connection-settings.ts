import type { ConnectionOptions } from 'node:tls';
import type { Credential } from '../../auth/index.js';
import { ConfigurationError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import { bracketed, warnTlsUnverified, warnUnencrypted, type TlsSettings } from '../../network/index.js';
import { refuseTlsOnlyKeys } from '../tls-off-refusals.js';

/**
 * libpq's sslmode values that connector-auth supports, with libpq's meanings:
 * - `verify-full`: TLS, the certificate chain checked against the CA and the host name against the
 *   certificate (the default: the only mode that stops a man in the middle);
 * - `verify-ca`: TLS, chain checked, host name not (any server holding a certificate from that CA passes);
 * - `require`: TLS, nothing checked; like libpq, when a CA is configured the chain is checked (as verify-ca);
 * - `disable`: no TLS at all.
 * libpq's `allow` and `prefer` silently fall back to plain text, which is what this project refuses to
 * do without saying so: they are not offered.
 */
export const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

export interface PostgresEndpoint {
  host: string;
  port: number;
  user: string;
  database: string;
  sslmode: SslMode;
}

/** "postgres://alice@db.example.com:5432/sales (sslmode=verify-full)": what messages and the probe show. */
export function describeEndpoint(endpoint: PostgresEndpoint): string {
  return `postgres://${encodeURIComponent(endpoint.user)}@${bracketed(endpoint.host)}:${endpoint.port}/${encodeURIComponent(endpoint.database)} (sslmode=${endpoint.sslmode})`;
}

/**
 * The `ssl` option of a pg connection for an sslmode, from the common TLS keys, after refusing the
 * combinations that cannot do what they say; logs what a weaker mode gives up, every run.
 */
export function tlsOptionsFor(
  endpoint: PostgresEndpoint,
  tls: TlsSettings,
  credential: Credential,
  log: Pick<Logger, 'warning' | 'info'>,
): ConnectionOptions | false {
  const { sslmode, host } = endpoint;
  if (!tls.verify) {
    // Two switches for one decision would disagree sooner or later: sslmode is the one PostgreSQL users know.
    throw new ConfigurationError(
      `invalid configuration for the postgres source: 'tls_skip_verify' is not used; 'sslmode' says how the server is verified`,
      {
        code: 'tls_skip_verify_not_for_postgres',
        key: 'tls_skip_verify',
        hint: "remove 'tls_skip_verify'; set 'sslmode' to require for an encrypted connection whose server is not verified",
      },
    );
  }
  const clientCertificate = tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {};
  if (sslmode === 'disable') return withoutTls(endpoint, tls, credential, log);
  const ca = tls.ca ? { ca: tls.ca } : {};
  // Node checks the host name in checkServerIdentity; the chain is checked before it, whatever it returns.
  const chainOnly = { ...ca, ...clientCertificate, rejectUnauthorized: true, checkServerIdentity: () => undefined };
  switch (sslmode) {
    case 'verify-full':
      return { ...ca, ...clientCertificate, rejectUnauthorized: true };
    case 'verify-ca':
      log.info(`sslmode=verify-ca: the certificate of ${host} is checked against the CA, not against the host name`);
      return chainOnly;
    case 'require':
      if (tls.ca) {
        log.warning(
          `sslmode=require: the certificate of ${host} is checked against 'tls_ca_certificate' (as libpq does when a CA is given), but not its host name; use verify-full`,
        );
        return chainOnly;
      }
      warnTlsUnverified(log, host, 'the credential', { setting: 'sslmode=require', fix: 'use verify-full' });
      return { ...clientCertificate, rejectUnauthorized: false };
  }
}

/** sslmode=disable: refused with a client certificate or an IAM login, which need TLS; else warned about. */
function withoutTls(
  endpoint: PostgresEndpoint,
  tls: TlsSettings,
  credential: Credential,
  log: Pick<Logger, 'warning'>,
): false {
  // tls_skip_verify is refused for postgres whatever the sslmode (tlsOptionsFor).
  refuseTlsOnlyKeys(
    { source: 'postgres', key: 'sslmode', value: 'disable', turnOn: "set 'sslmode' to verify-full (or verify-ca)" },
    { clientCertificate: Boolean(tls.cert || credential.clientCertificate), skipVerify: false },
  );
  if (loginCapability(credential) === 'awsKeys') {
    // RDS refuses an IAM database login without TLS; the token would cross the network in clear.
    throw new ConfigurationError(
      `invalid configuration for the postgres source: an IAM database login (${credential.method}) needs TLS, but sslmode=disable`,
      {
        code: 'iam_login_without_tls',
        key: 'sslmode',
        hint: "set 'sslmode' to verify-full, with 'tls_ca_certificate' set to the RDS CA bundle",
      },
    );
  }
  warnUnencrypted(log, endpoint.host, 'the login exchange, queries and results', 'sslmode=disable');
  return false;
}

/**
 * What the login sends as its password, from the credential's capabilities in the source's order of
 * preference (its `needs`); none for a client certificate alone.
 */
export function loginCapability(credential: Credential): 'password' | 'bearerToken' | 'awsKeys' | undefined {
  if (credential.password) return 'password';
  if (credential.bearerToken) return 'bearerToken';
  return credential.awsKeys ? 'awsKeys' : undefined;
}
