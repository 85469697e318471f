import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { z } from 'zod';
import { keys } from '../../config/index.js';
import { ConfigurationError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import { bracketed, sshTunnelKeys, warnTlsUnverified, warnUnencrypted, type TlsSettings } from '../../network/index.js';
import { refuseTlsOnlyKeys } from '../tls-off-refusals.js';

/**
 * The ftp source's keys, named as the sftp source names them (`host`, `port`, `username`,
 * `probe_path`), plus `ftp_tls`: `explicit` (the default: the plain port, then AUTH TLS before the
 * login), `implicit` (TLS from the first byte, usually port 990) or `none` (plain FTP: the password
 * and the files cross the network in clear; chosen by name and warned on every run). With TLS the
 * server's certificate is checked against the CA (`tls_ca_certificate`, else the system's) and its
 * name against `host`, unless `tls_skip_verify` says otherwise (warned too).
 */

export const FTP_TLS = ['explicit', 'implicit', 'none'] as const;
export type FtpTls = (typeof FTP_TLS)[number];

export const ftpKeys = z.object({
  host: keys.text(),
  port: keys.optionalText(),
  username: keys.text(),
  ftp_tls: keys.oneOf(FTP_TLS, 'explicit'),
  probe_path: keys.textWithDefault('.'),
  ...sshTunnelKeys.shape,
});
export type FtpKeys = z.output<typeof ftpKeys>;

export interface FtpEndpoint {
  host: string;
  port: number;
  username: string;
  tls: FtpTls;
}

/** The port: the configured one, else 21 (990 for implicit FTPS, where it listens by convention). */
export function ftpEndpoint(k: FtpKeys): FtpEndpoint {
  const fallback = k.ftp_tls === 'implicit' ? 990 : 21;
  const text = k.port?.trim();
  const port = text ? Number(text) : fallback;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new ConfigurationError(
      `invalid configuration for the ftp source: 'port' must be a whole number from 1 to 65535`,
      {
        code: 'invalid_value',
        key: 'port',
        hint: `set 'port' to the server's port (default ${fallback})`,
      },
    );
  return { host: k.host.trim(), port, username: k.username, tls: k.ftp_tls };
}

/** "ftps://alice@files.example.com:21 (AUTH TLS)": what messages and the probe show. */
export function describeEndpoint(endpoint: FtpEndpoint): string {
  const scheme = endpoint.tls === 'none' ? 'ftp' : 'ftps';
  const how =
    endpoint.tls === 'explicit' ? ' (AUTH TLS)' : endpoint.tls === 'implicit' ? ' (implicit TLS)' : ' (no TLS)';
  return `${scheme}://${encodeURIComponent(endpoint.username)}@${bracketed(endpoint.host)}:${endpoint.port}${how}`;
}

/**
 * Node's TLS options for the control and data connections, after refusing what cannot do what it
 * says; logs what a weaker choice gives up, every run. Undefined: plain FTP.
 */
export function ftpTlsOptions(
  endpoint: FtpEndpoint,
  tls: TlsSettings,
  log: Pick<Logger, 'warning'>,
): ConnectionOptions | undefined {
  if (endpoint.tls === 'none') {
    refuseTlsOnlyKeys(
      { source: 'ftp', key: 'ftp_tls', value: 'none', turnOn: "set 'ftp_tls' to explicit or implicit" },
      { clientCertificate: Boolean(tls.cert), skipVerify: !tls.verify },
    );
    warnUnencrypted(log, endpoint.host, 'the password and every file', 'ftp_tls=none');
    return undefined;
  }
  if (!tls.verify) warnTlsUnverified(log, endpoint.host, 'the password');
  return {
    ...(tls.ca ? { ca: tls.ca } : {}),
    ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
    rejectUnauthorized: tls.verify,
    // The name checked: the real host, also when the control connection goes to a tunnel's listener.
    host: endpoint.host,
    ...(isIP(endpoint.host) ? {} : { servername: endpoint.host }),
  };
}
