import { ConfigurationError, importOptionalPackage } from '../../errors/index.js';
import { checkHostKeyRule, prepareSshTunnel, sshLogin, type HostKeyRule } from '../../network/index.js';
import { defineSource } from '../source-definition.js';
import { SftpConnection } from './sftp-connection.js';
import type { SftpSource } from './sftp-files.js';
import { describeEndpoint, sftpKeys, type SftpEndpoint, type SftpKeys } from './sftp-settings.js';
import { loginSecretOf } from './login-secret.js';

/**
 * An SFTP server, through ssh2-sftp-client (on ssh2), both imported by `connect`. The probe opens
 * the SSH connection (host key checked, then the login) and lists `probe_path` once. The connection
 * stays open for the connector's update(), which gets a small surface: list, stat, read a file whole
 * or as a stream. A connection the server drops is reopened by the next call.
 *
 * With `ssh_tunnel_host` the server is reached through an SSH tunnel (a server behind a bastion):
 * the SFTP connection is made to the tunnel's listener and, inside it, checks the server's own
 * host key against `host_key_fingerprint` as it would directly.
 */

export type { SftpEntry, SftpEntryType, SftpSource, SftpStat } from './sftp-files.js';

export default defineSource({
  name: 'sftp',
  summary:
    'SFTP server: password or SSH key, host key checked against host_key_fingerprint; probe = one listing of probe_path',
  keys: sftpKeys,
  needs: ['password', 'sshKey'],
  async connect(k, credential, context): Promise<SftpSource> {
    const endpoint: SftpEndpoint = { host: k.host.trim(), port: k.port, username: k.username };
    if (context.common.tls_skip_verify) refuseTlsSkipVerify();
    const timeoutSeconds = context.common.timeout_seconds;
    const tunnel = await prepareSshTunnel(k, endpoint, { timeoutSeconds, log: context.log, secrets: context.secrets });
    const target = describeEndpoint(endpoint) + (tunnel ? ` via ${tunnel.bastion}` : '');
    const hostKeyRule = hostKeyRuleOf(k);
    checkHostKeyRule(
      hostKeyRule,
      { host: endpoint.host, port: endpoint.port, target, risk: 'receive the credential' },
      context.log,
    );
    const login = sshLogin(loginSecretOf(credential), endpoint.username);
    const { default: Client } = await importOptionalPackage(
      'ssh2-sftp-client',
      "source 'sftp'",
      () => import('ssh2-sftp-client'),
    );
    return new SftpConnection({
      endpoint,
      target,
      probePath: k.probe_path,
      credential,
      timeoutSeconds,
      hostKeyRule,
      login,
      tunnel,
      log: context.log,
      Client,
    });
  },
});

/** SFTP runs over SSH, whose server is checked by its host key: a TLS setting would promise what it does not do. */
function refuseTlsSkipVerify(): never {
  throw new ConfigurationError(
    `invalid configuration for the sftp source: 'tls_skip_verify' is not used; SFTP runs over SSH, whose server is checked by its host key`,
    {
      code: 'tls_skip_verify_not_for_sftp',
      key: 'tls_skip_verify',
      hint: "remove 'tls_skip_verify'; set 'host_key_fingerprint' to the server's host key fingerprint",
    },
  );
}

function hostKeyRuleOf(k: SftpKeys): HostKeyRule {
  return {
    peer: 'server',
    fingerprintKey: 'host_key_fingerprint',
    skipKey: 'ssh_skip_host_key_check',
    expected: k.host_key_fingerprint,
    skip: k.ssh_skip_host_key_check,
  };
}
