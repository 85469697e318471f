import { PassThrough, type Readable } from 'node:stream';
import type { ConnectionOptions } from 'node:tls';
import type { Client, FileInfo } from 'basic-ftp';
import type { SshTunnel } from '../../network/index.js';
import type { CredentialFor, ProbeResult } from '../source-definition.js';
import { listingProbed } from '../remote-files.js';
import { classifyFileError, classifyFtpError, type FtpFailureContext, type FtpStep } from './classify-ftp-error.js';
import type { FtpEntry, FtpEntryType, FtpSource, FtpStat } from './ftp-files.js';
import type { FtpEndpoint } from './ftp-settings.js';

/** What `connect` settled from the configuration: everything a session needs but the network. */
export interface FtpConnectionSettings {
  endpoint: FtpEndpoint;
  /** The endpoint, and the bastion it is reached through. */
  target: string;
  probePath: string;
  credential: CredentialFor<'password'>;
  /** The password, read as each session logs in, and refused if it cannot be one FTP command line. */
  password: () => string;
  /** Undefined: plain FTP. */
  secureOptions: ConnectionOptions | undefined;
  timeoutSeconds: number;
  failure: FtpFailureContext;
  tunnel: SshTunnel | undefined;
  /** Passive data connections through the tunnel (tunnel-transfer.ts); undefined without one. */
  prepareTransfer: Client['prepareTransfer'] | undefined;
  /** basic-ftp's client class, imported by `connect`. */
  FtpClient: typeof Client;
}

/**
 * One FTP server as update() holds it. Its life: made by `connect` with no network; the first call
 * (the probe) opens the session step by step; a session the server drops is opened again by the
 * next call; `close` ends it, the tunnel and the credential.
 *
 * FTP runs one command at a time per session: the calls queue in order, and a stream holds the
 * session until it has been read to its end (or destroyed).
 */
export class FtpConnection implements FtpSource {
  readonly target: string;
  #session: Promise<Client> | undefined;
  /** The queue's end: each call waits for the one before it. */
  #tail: Promise<unknown> = Promise.resolve();

  /** `#`, not `private`: a connector that logs its source shows none of this (TLS keys, the credential). */
  readonly #settings: FtpConnectionSettings;

  constructor(settings: FtpConnectionSettings) {
    this.#settings = settings;
    this.target = settings.target;
  }

  probe = async (): Promise<ProbeResult> => {
    const { credential, probePath } = this.#settings;
    const started = performance.now();
    await credential.prepare?.();
    const entries = await this.queued(() => this.countEntries(probePath));
    return listingProbed(this.target, 'FTP', probePath, entries, started);
  };

  list = (path = '.'): Promise<FtpEntry[]> =>
    this.call('list', path, async (client) =>
      (await client.list(path))
        .filter((item) => item.name !== '.' && item.name !== '..')
        .map((item) => ({ name: item.name, type: entryType(item), size: item.size, modifiedAt: item.modifiedAt })),
    );

  stat = (path: string): Promise<FtpStat> =>
    this.call('stat', path, async (client) => {
      try {
        const size = await client.size(path);
        const modifiedAt = await client.lastMod(path).catch(() => undefined);
        return { type: 'file', size, modifiedAt } satisfies FtpStat;
      } catch (error) {
        // SIZE answers 550 for a directory too: a directory is what CWD accepts.
        const here = await client.pwd();
        try {
          await client.cd(path);
        } catch {
          throw error;
        }
        await client.cd(here);
        return { type: 'directory', size: 0, modifiedAt: undefined } satisfies FtpStat;
      }
    });

  readFile = (path: string): Promise<Buffer> =>
    this.call('get', path, async (client) => {
      const chunks: Buffer[] = [];
      const sink = new PassThrough();
      sink.on('data', (chunk: Buffer) => chunks.push(chunk));
      await client.downloadTo(sink, path);
      return Buffer.concat(chunks);
    });

  createReadStream = (path: string): Promise<Readable> => {
    const out = new PassThrough();
    let finished: Promise<unknown> = Promise.resolve();
    return this.queued(
      async () => {
        const client = await this.connected();
        // The download runs while the connector reads; the session is the stream's until it ends.
        finished = client.downloadTo(out, path).catch((error: unknown) => {
          if (client.closed) this.#session = undefined;
          out.destroy(classifyFileError(error, 'read', path, this.#settings.failure));
        });
        // A connector that stops reading early ends the session's transfer too.
        out.once('close', () => {
          if (!out.readableEnded && !client.closed) {
            client.close();
            this.#session = undefined;
          }
        });
        return out as Readable;
      },
      () => finished,
    );
  };

  close = async (): Promise<void> => {
    const open = this.#session;
    this.#session = undefined;
    await open?.then((client) => client.close()).catch(() => undefined);
    await this.#settings.tunnel?.close();
    await this.#settings.credential.close?.();
  };

  /**
   * The probe's listing. Into the directory first: vsftpd lists a path that does not exist as an
   * empty directory, while CWD answers 550 for it (and for a file).
   */
  private async countEntries(probePath: string): Promise<number> {
    const client = await this.connected();
    try {
      const here = await client.pwd();
      await client.cd(probePath);
      const count = (await client.list()).length;
      await client.cd(here);
      return count;
    } catch (error) {
      throw classifyFtpError(error, 'list', this.#settings.failure, probePath);
    }
  }

  /** `work` after every call queued before it; the next one waits for `holdUntil` too (a stream's end). */
  private queued<T>(work: () => Promise<T>, holdUntil?: (result: T) => Promise<unknown>): Promise<T> {
    const run = this.#tail.then(work);
    this.#tail = run.then(
      (result) => holdUntil?.(result).catch(() => undefined),
      () => undefined,
    );
    return run;
  }

  /** One call on the session; its failure classified, and a dead session forgotten. */
  private call<T>(operation: string, path: string, work: (client: Client) => Promise<T>): Promise<T> {
    return this.queued(async () => {
      const client = await this.connected();
      try {
        return await work(client);
      } catch (error) {
        if (client.closed) this.#session = undefined;
        throw classifyFileError(error, operation, path, this.#settings.failure);
      }
    });
  }

  /** The open session, or one being opened; a failed opening is forgotten so the next call retries. */
  private connected(): Promise<Client> {
    this.#session ??= this.open().catch((error: unknown) => {
      this.#session = undefined;
      throw error;
    });
    return this.#session;
  }

  /** A session, step by step, so that a failure says which step failed. */
  private async open(): Promise<Client> {
    const { endpoint, secureOptions, tunnel, failure } = this.#settings;
    const reach = tunnel ? await tunnel.open() : endpoint;
    const client = new this.#settings.FtpClient(this.#settings.timeoutSeconds * 1000);
    if (this.#settings.prepareTransfer) client.prepareTransfer = this.#settings.prepareTransfer;
    let step: FtpStep = 'connect';
    try {
      if (endpoint.tls === 'implicit') await client.connectImplicitTLS(reach.host, reach.port, secureOptions);
      else await client.connect(reach.host, reach.port);
      if (endpoint.tls === 'explicit') {
        step = 'tls';
        await client.useTLS(secureOptions);
      }
      step = 'login';
      await client.login(endpoint.username, this.#settings.password());
      step = 'connect';
      await client.useDefaultSettings();
      return client;
    } catch (error) {
      client.close();
      throw tunnel?.takeFailure() ?? classifyFtpError(error, step, failure);
    }
  }
}

function entryType(item: FileInfo): FtpEntryType {
  return item.isDirectory ? 'directory' : item.isFile ? 'file' : item.isSymbolicLink ? 'symlink' : 'other';
}
