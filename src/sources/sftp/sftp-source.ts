import type { ConnectConfig } from 'ssh2';
import type SftpClient from 'ssh2-sftp-client';
import { ConfigurationError, importOptionalPackage } from '../../errors/index.js';
import {
  checkHostKeyRule,
  firstLineOf,
  hostKeyCheck,
  prepareSshTunnel,
  sshLogin,
  type HostKeyRule,
} from '../../network/index.js';
import { classifiedStream } from '../classified-stream.js';
import type { RemoteEntryType, RemoteFiles } from '../remote-files.js';
import { defineSource, type ProbeResult } from '../source-definition.js';
import {
  classifyConnectError,
  classifyFileError,
  classifyProbeError,
  type SftpFailureContext,
} from './classify-sftp-error.js';
import { describeEndpoint, sftpKeys, type SftpEndpoint } from './sftp-settings.js';
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

/** Symbolic links are followed by stat(), and listed as `symlink`. */
export type SftpSource = RemoteFiles<SftpEntry, SftpStat>;

export interface SftpEntry {
  name: string;
  type: SftpEntryType;
  size: number;
  modifiedAt: Date;
}

export interface SftpStat {
  type: SftpEntryType;
  size: number;
  modifiedAt: Date;
}

export type SftpEntryType = RemoteEntryType;

export default defineSource({
  name: 'sftp',
  summary:
    'SFTP server: password or SSH key, host key checked against host_key_fingerprint; probe = one listing of probe_path',
  keys: sftpKeys,
  needs: ['password', 'sshKey'],
  async connect(k, credential, context): Promise<SftpSource> {
    const endpoint: SftpEndpoint = { host: k.host.trim(), port: k.port, username: k.username };
    if (context.common.tls_skip_verify) {
      throw new ConfigurationError(
        `invalid configuration for the sftp source: 'tls_skip_verify' is not used; SFTP runs over SSH, whose server is checked by its host key`,
        {
          code: 'tls_skip_verify_not_for_sftp',
          key: 'tls_skip_verify',
          hint: "remove 'tls_skip_verify'; set 'host_key_fingerprint' to the server's host key fingerprint",
        },
      );
    }
    const timeoutSeconds = context.common.timeout_seconds;
    const tunnel = await prepareSshTunnel(k, endpoint, { timeoutSeconds, log: context.log, secrets: context.secrets });
    const target = describeEndpoint(endpoint) + (tunnel ? ` via ${tunnel.bastion}` : '');
    const hostKeyRule: HostKeyRule = {
      peer: 'server',
      fingerprintKey: 'host_key_fingerprint',
      skipKey: 'ssh_skip_host_key_check',
      expected: k.host_key_fingerprint,
      skip: k.ssh_skip_host_key_check,
    };
    checkHostKeyRule(
      hostKeyRule,
      { host: endpoint.host, port: endpoint.port, target, risk: 'receive the credential' },
      context.log,
    );
    const login = sshLogin(loginSecretOf(credential), endpoint.username);
    const log = context.log;
    const { default: Client } = await importOptionalPackage(
      'ssh2-sftp-client',
      "source 'sftp'",
      () => import('ssh2-sftp-client'),
    );

    /** The failure context of the latest connection: its host key check and the server's answer. */
    let failure: SftpFailureContext = {
      endpoint,
      credential,
      timeoutSeconds,
      hostKeyRule,
      hostKey: hostKeyCheck(hostKeyRule),
    };
    let current: SftpClient | undefined;
    let session: Promise<SftpClient> | undefined;

    const open = async (): Promise<SftpClient> => {
      // Directly, or the tunnel's listener (opened, with the bastion login, on first use).
      const reach = tunnel ? await tunnel.open() : endpoint;
      const hostKey = hostKeyCheck(hostKeyRule, (key) =>
        log.info(`${target} presented host key ${key.type} ${key.fingerprint} (not checked)`),
      );
      const attempt: SftpFailureContext = { endpoint, credential, timeoutSeconds, hostKeyRule, hostKey };
      failure = attempt;
      let lastSshError: Error | undefined;
      const client: SftpClient = new Client('connector-auth', {
        // ssh2-sftp-client prints to the console by default; a connection lost between calls is
        // reported by the next call instead, which reconnects.
        error: (error: unknown) =>
          log.debug(`${target}: the SSH connection failed (${firstLineOf(error)}); the next call reconnects`),
        end: () => undefined,
        close: () => {
          if (current === client) {
            current = undefined;
            session = undefined;
          }
        },
      });
      current = client;
      // ssh2's own error keeps its `level`; the wrapper's copy does not. Prepended, so it runs first.
      client.on('error', (error: Error) => (lastSshError = error));
      const config: ConnectConfig = {
        host: reach.host,
        port: reach.port,
        username: endpoint.username,
        readyTimeout: timeoutSeconds * 1000,
        keepaliveInterval: 15_000,
        hostVerifier: (key: Buffer) => hostKey.verify(key),
        // The configured credential only (network/ssh-login.ts); what the server answers is kept in the
        // attempt's context, to say whether the credential, the method or a second step failed.
        authHandler: login(attempt),
      };
      try {
        await client.connect(config);
        return client;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (current === client) current = undefined;
        // A connection the tunnel broke (the bastion refused the channel) is the tunnel's to explain.
        throw tunnel?.takeFailure() ?? classifyConnectError(lastSshError ?? error, attempt);
      }
    };
    const connected = (): Promise<SftpClient> => {
      session ??= open().catch((error: unknown) => {
        session = undefined;
        throw error;
      });
      return session;
    };
    /** One call on the connection; its failure classified as the call's or the connection's. */
    const call = async <T>(operation: string, path: string, work: (client: SftpClient) => Promise<T>): Promise<T> => {
      const client = await connected();
      try {
        return await work(client);
      } catch (error) {
        throw classifyFileError(error, operation, path, failure);
      }
    };

    return {
      target,
      async probe(): Promise<ProbeResult> {
        const started = performance.now();
        await credential.prepare?.();
        const client = await connected();
        let entries: number;
        try {
          entries = (await client.list(k.probe_path)).length;
        } catch (error) {
          throw classifyProbeError(error, k.probe_path, failure);
        }
        const shown = k.probe_path === '.' ? '. (login directory)' : k.probe_path;
        return {
          target,
          outcome: `SFTP list ${shown}: ${entries} ${entries === 1 ? 'entry' : 'entries'}`,
          elapsedMs: performance.now() - started,
        };
      },
      list: (path = '.') =>
        call('list', path, async (client) =>
          (await client.list(path)).map((item) => ({
            name: item.name,
            type: entryType(item.type),
            size: item.size,
            modifiedAt: new Date(item.modifyTime),
          })),
        ),
      stat: (path) =>
        call('stat', path, async (client) => {
          const stats = await client.stat(path);
          const type = stats.isDirectory
            ? 'directory'
            : stats.isFile
              ? 'file'
              : stats.isSymbolicLink
                ? 'symlink'
                : 'other';
          return { type, size: stats.size, modifiedAt: new Date(stats.modifyTime) } satisfies SftpStat;
        }),
      readFile: (path) => call('get', path, async (client) => (await client.get(path)) as Buffer),
      createReadStream: (path) =>
        call('read', path, async (client) => {
          // The file is opened as the stream starts: a missing file arrives as its 'error'.
          return classifiedStream(client.createReadStream(path), (error) =>
            classifyFileError(error, 'read', path, failure),
          );
        }),
      async close() {
        const client = current;
        current = undefined;
        session = undefined;
        if (client) await client.end().catch(() => undefined);
        await tunnel?.close();
        await credential.close?.();
      },
    };
  },
});

function entryType(type: string): SftpEntryType {
  return type === 'd' ? 'directory' : type === '-' ? 'file' : type === 'l' ? 'symlink' : 'other';
}
