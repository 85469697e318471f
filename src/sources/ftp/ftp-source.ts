import { ConfigurationError, importOptionalPackage } from '../../errors/index.js';
import { prepareSshTunnel } from '../../network/index.js';
import { defineSource } from '../source-definition.js';
import type { FtpFailureContext } from './classify-ftp-error.js';
import { FtpConnection } from './ftp-connection.js';
import type { FtpSource } from './ftp-files.js';
import { describeEndpoint, ftpEndpoint, ftpKeys, ftpTlsOptions } from './ftp-settings.js';
import { loginSecretOf } from './login-secret.js';
import { passiveThroughTunnel } from './tunnel-transfer.js';

/**
 * An FTP or FTPS server, through basic-ftp, imported by `connect`. The probe opens the session step
 * by step (connect, AUTH TLS for explicit FTPS, the login, binary mode) and lists `probe_path` once
 * (entering it first, so that a directory that is not there fails rather than lists as empty);
 * the session stays open for the connector's update(), which gets the sftp source's surface: list,
 * stat, read a file whole or as a stream. Transfers are passive (the client connects to the server
 * for each listing and file), over TLS too when the control connection is. A session the server
 * drops is opened again by the next call (ftp-connection.ts).
 *
 * With `ssh_tunnel_host` the control connection goes to the tunnel's listener, and each passive
 * data connection through the same bastion to the port the server names (tunnel-transfer.ts).
 */

export type { FtpEntry, FtpEntryType, FtpSource, FtpStat } from './ftp-files.js';

export default defineSource({
  name: 'ftp',
  tls: true,
  summary:
    'FTP server: explicit FTPS by default (implicit, or plain FTP by name), password or anonymous; probe = one listing of probe_path',
  keys: ftpKeys,
  needs: ['password'],
  async connect(k, credential, context): Promise<FtpSource> {
    const endpoint = ftpEndpoint(k);
    const login = loginSecretOf(credential);
    const tls = await context.tls.read();
    const secureOptions = ftpTlsOptions(endpoint, tls, context.log);
    const timeoutSeconds = context.common.timeout_seconds;
    const tunnelContext = { timeoutSeconds, log: context.log, secrets: context.secrets };
    const tunnel = await prepareSshTunnel(k, endpoint, tunnelContext);
    const target = describeEndpoint(endpoint) + (tunnel ? ` via ${tunnel.bastion}` : '');
    const failure: FtpFailureContext = { endpoint, credential: credential.description, tls, timeoutSeconds };
    const { Client: FtpClient } = await importOptionalPackage('basic-ftp', "source 'ftp'", () => import('basic-ftp'));
    return new FtpConnection({
      endpoint,
      target,
      probePath: k.probe_path,
      credential,
      password: () => commandSafe(login.password()),
      secureOptions,
      timeoutSeconds,
      failure,
      tunnel,
      prepareTransfer: tunnel ? passiveThroughTunnel(k, endpoint, tunnelContext) : undefined,
      FtpClient,
    });
  },
});

/**
 * FTP sends the password as a line of its control connection (`PASS …`): a line break in it would end
 * that command and start another. Refused, naming the key, before it is sent.
 */
function commandSafe(password: string): string {
  if (/[\r\n]/.test(password))
    throw new ConfigurationError(
      'invalid configuration for the ftp source: the password holds a line break, which FTP cannot send',
      {
        code: 'ftp_password_line_break',
        key: 'password',
        hint: "check 'password': FTP sends it as one line, so it cannot hold a line break",
      },
    );
  return password;
}
