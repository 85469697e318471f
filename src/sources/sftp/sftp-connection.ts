import type { ConnectConfig } from 'ssh2';
import type SftpClient from 'ssh2-sftp-client';
import type { Logger } from '../../log/index.js';
import { firstLineOf, hostKeyCheck, type HostKeyRule, type sshLogin, type SshTunnel } from '../../network/index.js';
import { classifiedStream } from '../classified-stream.js';
import type { CredentialFor, ProbeResult } from '../source-definition.js';
import { listingProbed } from '../remote-files.js';
import {
  classifyConnectError,
  classifyFileError,
  classifyProbeError,
  type SftpFailureContext,
} from './classify-sftp-error.js';
import type { SftpEntry, SftpEntryType, SftpSource, SftpStat } from './sftp-files.js';
import type { SftpEndpoint } from './sftp-settings.js';

/** What `connect` settled from the configuration: everything the connection needs but the network. */
export interface SftpConnectionSettings {
  endpoint: SftpEndpoint;
  /** The endpoint, and the bastion it is reached through: "sftp://alice@files:22 via bastion:22". */
  target: string;
  probePath: string;
  credential: CredentialFor<'password' | 'sshKey'>;
  timeoutSeconds: number;
  hostKeyRule: HostKeyRule;
  /** The SSH login with the configured credential (network/ssh-login.ts). */
  login: ReturnType<typeof sshLogin>;
  tunnel: SshTunnel | undefined;
  log: Logger;
  /** ssh2-sftp-client's client class, imported by `connect`. */
  Client: typeof SftpClient;
}

/**
 * One SFTP server as update() holds it. Its life: made by `connect` with no network; the first
 * call (the probe) opens the SSH connection (host key checked, then the login); a connection the
 * server drops is reopened by the next call; `close` ends it, the tunnel and the credential.
 */
export class SftpConnection implements SftpSource {
  readonly target: string;
  /** The failure context of the latest connection: its host key check and the server's answer. */
  #failure: SftpFailureContext;
  #current: SftpClient | undefined;
  #session: Promise<SftpClient> | undefined;

  /** `#`, not `private`: a connector that logs its source shows none of this (TLS keys, the credential). */
  readonly #settings: SftpConnectionSettings;

  constructor(settings: SftpConnectionSettings) {
    this.#settings = settings;
    const { endpoint, credential, timeoutSeconds, hostKeyRule } = settings;
    this.target = settings.target;
    this.#failure = { endpoint, credential, timeoutSeconds, hostKeyRule, hostKey: hostKeyCheck(hostKeyRule) };
  }

  probe = async (): Promise<ProbeResult> => {
    const { credential, probePath } = this.#settings;
    const started = performance.now();
    await credential.prepare?.();
    const client = await this.connected();
    let entries: number;
    try {
      entries = (await client.list(probePath)).length;
    } catch (error) {
      throw classifyProbeError(error, probePath, this.#failure);
    }
    return listingProbed(this.target, 'SFTP', probePath, entries, started);
  };

  list = (path = '.'): Promise<SftpEntry[]> =>
    this.call('list', path, async (client) =>
      (await client.list(path)).map((item) => ({
        name: item.name,
        type: entryType(item.type),
        size: item.size,
        modifiedAt: new Date(item.modifyTime),
      })),
    );

  stat = (path: string): Promise<SftpStat> =>
    this.call('stat', path, async (client) => {
      const stats = await client.stat(path);
      const type = stats.isDirectory ? 'directory' : stats.isFile ? 'file' : stats.isSymbolicLink ? 'symlink' : 'other';
      return { type, size: stats.size, modifiedAt: new Date(stats.modifyTime) } satisfies SftpStat;
    });

  readFile = (path: string): Promise<Buffer> =>
    this.call('get', path, async (client) => (await client.get(path)) as Buffer);

  createReadStream = (path: string) =>
    this.call('read', path, async (client) => {
      // The file is opened as the stream starts: a missing file arrives as its 'error'.
      return classifiedStream(client.createReadStream(path), (error) =>
        classifyFileError(error, 'read', path, this.#failure),
      );
    });

  close = async (): Promise<void> => {
    const client = this.#current;
    this.#current = undefined;
    this.#session = undefined;
    if (client) await client.end().catch(() => undefined);
    await this.#settings.tunnel?.close();
    await this.#settings.credential.close?.();
  };

  /** The open connection, or one being opened; a failed opening is forgotten so the next call retries. */
  private connected(): Promise<SftpClient> {
    this.#session ??= this.open().catch((error: unknown) => {
      this.#session = undefined;
      throw error;
    });
    return this.#session;
  }

  /** One call on the connection; its failure classified as the call's or the connection's. */
  private async call<T>(operation: string, path: string, work: (client: SftpClient) => Promise<T>): Promise<T> {
    const client = await this.connected();
    try {
      return await work(client);
    } catch (error) {
      throw classifyFileError(error, operation, path, this.#failure);
    }
  }

  private async open(): Promise<SftpClient> {
    const { endpoint, credential, timeoutSeconds, hostKeyRule, tunnel, log } = this.#settings;
    // Directly, or the tunnel's listener (opened, with the bastion login, on first use).
    const reach = tunnel ? await tunnel.open() : endpoint;
    const hostKey = hostKeyCheck(hostKeyRule, (key) =>
      log.info(`${this.target} presented host key ${key.type} ${key.fingerprint} (not checked)`),
    );
    const attempt: SftpFailureContext = { endpoint, credential, timeoutSeconds, hostKeyRule, hostKey };
    this.#failure = attempt;
    let lastSshError: Error | undefined;
    const client = this.newClient();
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
      authHandler: this.#settings.login(attempt),
    };
    try {
      await client.connect(config);
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (this.#current === client) this.#current = undefined;
      // A connection the tunnel broke (the bastion refused the channel) is the tunnel's to explain.
      throw tunnel?.takeFailure() ?? classifyConnectError(lastSshError ?? error, attempt);
    }
  }

  /** A client that becomes the current one, and forgets itself when its connection closes. */
  private newClient(): SftpClient {
    const { log } = this.#settings;
    const client: SftpClient = new this.#settings.Client('connector-auth', {
      // ssh2-sftp-client prints to the console by default; a connection lost between calls is
      // reported by the next call instead, which reconnects.
      error: (error: unknown) =>
        log.debug(`${this.target}: the SSH connection failed (${firstLineOf(error)}); the next call reconnects`),
      end: () => undefined,
      close: () => {
        if (this.#current === client) {
          this.#current = undefined;
          this.#session = undefined;
        }
      },
    });
    this.#current = client;
    return client;
  }
}

function entryType(type: string): SftpEntryType {
  return type === 'd' ? 'directory' : type === '-' ? 'file' : type === 'l' ? 'symlink' : 'other';
}
