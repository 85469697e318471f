import { PassThrough, type Readable } from 'node:stream';
import type { Client, FileInfo } from 'basic-ftp';
import { ConfigurationError, importOptionalPackage } from '../../errors/index.js';
import { prepareSshTunnel } from '../../network/index.js';
import type { RemoteEntryType, RemoteFiles } from '../remote-files.js';
import { defineSource, type ProbeResult } from '../source-definition.js';
import { classifyFileError, classifyFtpError, type FtpFailureContext, type FtpStep } from './classify-ftp-error.js';
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
 * drops is opened again by the next call.
 *
 * FTP runs one command at a time per session: the calls queue in order, and a stream holds the
 * session until it has been read to its end (or destroyed).
 *
 * With `ssh_tunnel_host` the control connection goes to the tunnel's listener, and each passive
 * data connection through the same bastion to the port the server names (tunnel-transfer.ts).
 */

/**
 * Some servers (vsftpd) list a directory that does not exist as empty: stat() tells them apart. A
 * stat asks SIZE and MDTM, and a directory is what CWD accepts.
 */
export type FtpSource = RemoteFiles<FtpEntry, FtpStat>;

export type FtpEntryType = RemoteEntryType;

export interface FtpEntry {
  name: string;
  type: FtpEntryType;
  size: number;
  /** From a machine-readable listing (MLSD); undefined where the server lists only `ls -l` text (vsftpd): stat() asks MDTM. */
  modifiedAt: Date | undefined;
}

export interface FtpStat {
  type: 'file' | 'directory';
  size: number;
  modifiedAt: Date | undefined;
}

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
    const tunnel = await prepareSshTunnel(k, endpoint, { timeoutSeconds, log: context.log, secrets: context.secrets });
    const target = describeEndpoint(endpoint) + (tunnel ? ` via ${tunnel.bastion}` : '');
    const failure: FtpFailureContext = { endpoint, credential: credential.description, tls, timeoutSeconds };
    const { Client: FtpClient } = await importOptionalPackage('basic-ftp', "source 'ftp'", () => import('basic-ftp'));

    /** A session, step by step, so that a failure says which step failed. */
    const open = async (): Promise<Client> => {
      const reach = tunnel ? await tunnel.open() : endpoint;
      const client = new FtpClient(timeoutSeconds * 1000);
      if (tunnel)
        client.prepareTransfer = passiveThroughTunnel(k, endpoint, {
          timeoutSeconds,
          log: context.log,
          secrets: context.secrets,
        });
      let step: FtpStep = 'connect';
      try {
        if (endpoint.tls === 'implicit') await client.connectImplicitTLS(reach.host, reach.port, secureOptions);
        else await client.connect(reach.host, reach.port);
        if (endpoint.tls === 'explicit') {
          step = 'tls';
          await client.useTLS(secureOptions);
        }
        step = 'login';
        await client.login(endpoint.username, commandSafe(login.password()));
        step = 'connect';
        await client.useDefaultSettings();
        return client;
      } catch (error) {
        client.close();
        throw tunnel?.takeFailure() ?? classifyFtpError(error, step, failure);
      }
    };

    let session: Promise<Client> | undefined;
    const connected = (): Promise<Client> => {
      session ??= open().catch((error: unknown) => {
        session = undefined;
        throw error;
      });
      return session;
    };
    /** The queue: each call waits for the one before it (FTP has one command in flight per session). */
    let tail: Promise<unknown> = Promise.resolve();
    const queued = <T>(work: () => Promise<T>, holdUntil?: (result: T) => Promise<unknown>): Promise<T> => {
      const run = tail.then(work);
      tail = run.then(
        (result) => holdUntil?.(result).catch(() => undefined),
        () => undefined,
      );
      return run;
    };
    /** One call on the session; its failure classified, and a dead session forgotten. */
    const call = <T>(operation: string, path: string, work: (client: Client) => Promise<T>): Promise<T> =>
      queued(async () => {
        const client = await connected();
        try {
          return await work(client);
        } catch (error) {
          if (client.closed) session = undefined;
          throw classifyFileError(error, operation, path, failure);
        }
      });

    return {
      target,
      async probe(): Promise<ProbeResult> {
        const started = performance.now();
        await credential.prepare?.();
        const entries = await queued(async () => {
          const client = await connected();
          try {
            // Into the directory first: vsftpd lists a path that does not exist as an empty
            // directory, while CWD answers 550 for it (and for a file).
            const here = await client.pwd();
            await client.cd(k.probe_path);
            const count = (await client.list()).length;
            await client.cd(here);
            return count;
          } catch (error) {
            throw classifyFtpError(error, 'list', failure, k.probe_path);
          }
        });
        const shown = k.probe_path === '.' ? '. (login directory)' : k.probe_path;
        return {
          target,
          outcome: `FTP list ${shown}: ${entries} ${entries === 1 ? 'entry' : 'entries'}`,
          elapsedMs: performance.now() - started,
        };
      },
      list: (path = '.') =>
        call('list', path, async (client) =>
          (await client.list(path))
            .filter((item) => item.name !== '.' && item.name !== '..')
            .map((item) => ({ name: item.name, type: entryType(item), size: item.size, modifiedAt: item.modifiedAt })),
        ),
      stat: (path) =>
        call('stat', path, async (client) => {
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
        }),
      readFile: (path) =>
        call('get', path, async (client) => {
          const chunks: Buffer[] = [];
          const sink = new PassThrough();
          sink.on('data', (chunk: Buffer) => chunks.push(chunk));
          await client.downloadTo(sink, path);
          return Buffer.concat(chunks);
        }),
      createReadStream: (path) => {
        const out = new PassThrough();
        let finished: Promise<unknown> = Promise.resolve();
        return queued(
          async () => {
            const client = await connected();
            // The download runs while the connector reads; the session is the stream's until it ends.
            finished = client.downloadTo(out, path).catch((error: unknown) => {
              if (client.closed) session = undefined;
              out.destroy(classifyFileError(error, 'read', path, failure));
            });
            // A connector that stops reading early ends the session's transfer too.
            out.once('close', () => {
              if (!out.readableEnded && !client.closed) {
                client.close();
                session = undefined;
              }
            });
            return out as Readable;
          },
          () => finished,
        );
      },
      async close() {
        const open = session;
        session = undefined;
        await open?.then((client) => client.close()).catch(() => undefined);
        await tunnel?.close();
        await credential.close?.();
      },
    };
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

function entryType(item: FileInfo): FtpEntryType {
  return item.isDirectory ? 'directory' : item.isFile ? 'file' : item.isSymbolicLink ? 'symlink' : 'other';
}
