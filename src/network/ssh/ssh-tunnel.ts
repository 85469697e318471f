import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Client, ClientChannel } from 'ssh2';
import { z } from 'zod';
import { keys } from '../../config/index.js';
import {
  ConfigurationError,
  ConnectorError,
  SourceUnreachableError,
  isConnectorAuthError,
  type ConnectorAuthError,
} from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import { SYSTEM } from '../failures/classify-network-error.js';
import {
  checkHostKeyRule,
  fingerprintList,
  hostKeyCheck,
  hostKeyMismatch,
  type HostKeyCheck,
  type HostKeyRule,
} from './ssh-host-key.js';
import { readSshPrivateKey } from './ssh-private-key.js';
import { sshLogin, type LoginRecord, type SshLoginSecret } from './ssh-login.js';
import { loginRefused, type LoginTerms } from './ssh-login-refusal.js';
import { firstLineOf } from '../one-line.js';
import { bracketed } from '../target.js';

/**
 * An SSH tunnel through a bastion for any TCP source: a listener on 127.0.0.1 (ephemeral port)
 * whose every connection is forwarded by the bastion to the source's own host and port (ssh2's
 * `forwardOut`, a direct-tcpip channel). The source connects to the listener and keeps speaking its
 * own protocol, TLS included: it must still verify the certificate against its real host name.
 *
 * The bastion is held to the same rules as the sftp source's server, through the same code
 * (ssh-host-key.ts, ssh-private-key.ts): its host key is checked against
 * `ssh_tunnel_host_key_fingerprint` before the key is used (a missing fingerprint is exit 2 unless
 * `ssh_tunnel_skip_host_key_check=true`, warned on every run), the login is the one configured
 * secret — `ssh_tunnel_private_key`, or `ssh_tunnel_password` for a bastion that takes passwords
 * (through PAM's keyboard-interactive too) — through the same login code (ssh-login.ts), and errors
 * name the `ssh_tunnel_*` key to fix. A key is parsed (ssh2 imported) when the tunnel is prepared,
 * before any connection; the bastion is reached by the first `open()`.
 */

export const sshTunnelKeys = z.object({
  ssh_tunnel_host: keys.optionalText(),
  ssh_tunnel_port: keys.integer({ min: 1, max: 65535, default: 22 }),
  ssh_tunnel_user: keys.optionalText(),
  ssh_tunnel_private_key: keys.optionalText(),
  ssh_tunnel_private_key_passphrase: keys.optionalText(),
  ssh_tunnel_password: keys.optionalText(),
  ssh_tunnel_host_key_fingerprint: fingerprintList(),
  ssh_tunnel_skip_host_key_check: keys.boolean(false),
});
export type SshTunnelKeys = z.output<typeof sshTunnelKeys>;

export interface SshTunnel {
  /** "ssh tunnel ssh://jump@bastion.example.com:22 → db.internal:5432": for messages. */
  readonly description: string;
  /** "ssh://jump@bastion.example.com:22" */
  readonly bastion: string;
  /** Where the bastion forwards to: with open(), what an HttpRoute is (http-route.ts). */
  readonly destination: { readonly host: string; readonly port: number };
  /** Connects to the bastion (once) and starts the listener: the address the source connects to. */
  open(): Promise<{ host: string; port: number }>;
  /**
   * Why the latest forwarded connection was closed before it carried anything (the bastion refused
   * the channel, or the SSH connection failed), once: a source whose connection broke asks first.
   */
  takeFailure(): ConnectorAuthError | undefined;
  close(): Promise<void>;
}

/** Where the bastion forwards to, and the configuration key that names it (default `host`, with `port`). */
export interface TunnelDestination {
  host: string;
  port: number;
  key?: string;
}

export interface SshTunnelContext {
  timeoutSeconds: number;
  log: Pick<Logger, 'warning' | 'info' | 'debug'>;
  secrets: Pick<SecretRegistry, 'register'>;
}

/**
 * The tunnel a configuration asks for, or undefined without `ssh_tunnel_host`. Everything that can
 * be wrong without the network is refused here, naming the key: a missing user, key or fingerprint,
 * a key that does not parse.
 */
export async function prepareSshTunnel(
  k: SshTunnelKeys,
  destination: TunnelDestination,
  context: SshTunnelContext,
): Promise<SshTunnel | undefined> {
  if (!k.ssh_tunnel_host) return undefined;
  const bastion = { host: k.ssh_tunnel_host.trim(), port: k.ssh_tunnel_port };
  if (!k.ssh_tunnel_user)
    throw new ConfigurationError(
      `invalid configuration for the SSH tunnel: key 'ssh_tunnel_user' is missing (ssh_tunnel_host is set)`,
      {
        code: 'missing_key',
        key: 'ssh_tunnel_user',
        hint: "set 'ssh_tunnel_user', or remove 'ssh_tunnel_host' to connect directly",
      },
    );
  // One secret, as a connector has one credential: with both, which one logged in would depend on
  // the order the bastion offers its methods in.
  if (k.ssh_tunnel_private_key && k.ssh_tunnel_password)
    throw new ConfigurationError(
      "invalid configuration for the SSH tunnel: both 'ssh_tunnel_private_key' and 'ssh_tunnel_password' are set",
      {
        code: 'ssh_tunnel_two_secrets',
        key: 'ssh_tunnel_password',
        hint: "keep the one the bastion takes for 'ssh_tunnel_user' and remove the other: a connector logs in with one secret",
      },
    );
  if (!k.ssh_tunnel_private_key && !k.ssh_tunnel_password)
    throw new ConfigurationError(
      `invalid configuration for the SSH tunnel: key 'ssh_tunnel_private_key' is missing (ssh_tunnel_host is set)`,
      {
        code: 'missing_key',
        key: 'ssh_tunnel_private_key',
        hint: "set 'ssh_tunnel_private_key' (or 'ssh_tunnel_password' for a bastion that takes passwords), or remove 'ssh_tunnel_host' to connect directly",
      },
    );
  const user = k.ssh_tunnel_user!;
  const via = `ssh://${encodeURIComponent(user)}@${bracketed(bastion.host)}:${bastion.port}`;
  const description = `ssh tunnel ${via} → ${bracketed(destination.host)}:${destination.port}`;
  const hostKeyRule: HostKeyRule = {
    peer: 'bastion',
    fingerprintKey: 'ssh_tunnel_host_key_fingerprint',
    skipKey: 'ssh_tunnel_skip_host_key_check',
    expected: k.ssh_tunnel_host_key_fingerprint,
    skip: k.ssh_tunnel_skip_host_key_check,
  };
  checkHostKeyRule(
    hostKeyRule,
    {
      host: bastion.host,
      port: bastion.port,
      target: `the bastion ${via}`,
      risk: 'read the tunnelled traffic that TLS does not protect',
    },
    context.log,
  );
  const secret = await tunnelSecret(k, context);
  const login = sshLogin(secret, user);
  const terms = tunnelLoginTerms(user, secret.kind);
  const ssh2 = (await import('ssh2')).default;

  let server: Server | undefined;
  let listening: Promise<{ host: string; port: number }> | undefined;
  let connection: Promise<Client> | undefined;
  /** The client behind `connection`, to tell its close from an older client's. */
  let newest: Client | undefined;
  let failure: ConnectorAuthError | undefined;
  // Set for good by close(). open() awaits the login and the listener, and close() may run while it
  // waits: each step after an await checks this, so that nothing starts for a tunnel already closed.
  let closed = false;
  /** Every SSH client until its connection closes, ready or still logging in: close() ends them all. */
  const clients = new Set<Client>();
  /** The listener's connections still open: close() ends them rather than wait for the source to. */
  const sockets = new Set<Socket>();
  const timeoutMs = context.timeoutSeconds * 1000;
  const closedError = () =>
    new ConnectorError(`${description}: the tunnel is closed (the source's close() ran)`, {
      code: 'ssh_tunnel_already_closed',
      hint: "use a source only until its close(): a closed source's tunnel does not reopen",
    });

  const connectBastion = (): Promise<Client> =>
    new Promise<Client>((resolve, reject) => {
      const client = new ssh2.Client();
      clients.add(client);
      newest = client;
      const hostKey = hostKeyCheck(hostKeyRule);
      const record: LoginRecord = {};
      let ready = false;
      client.on('ready', () => {
        ready = true;
        // Logged in after close() (which ended it, but the bastion was quicker): not kept.
        if (closed) {
          client.end();
          return reject(closedError());
        }
        resolve(client);
      });
      // Always listened to: an SSH connection failing later must not end the process.
      client.on('error', (error: Error & { level?: string }) => {
        if (!ready)
          return reject(
            bastionError(error, {
              description,
              terms,
              record,
              hostKeyRule,
              hostKey,
              timeoutSeconds: context.timeoutSeconds,
            }),
          );
        context.log.debug(
          `${description}: the SSH connection failed (${firstLineOf(error)}); the next connection reconnects`,
        );
      });
      client.on('close', () => {
        clients.delete(client);
        if (!ready)
          reject(
            new SourceUnreachableError(`${description} failed: the bastion closed the connection during login`, {
              code: 'ssh_tunnel_closed',
              key: 'ssh_tunnel_host',
              hint: "check that 'ssh_tunnel_host' and 'ssh_tunnel_port' point at an SSH server",
            }),
          );
        // Only the connection in use is forgotten: an older one closing late must not drop a newer one.
        if (newest === client) {
          newest = undefined;
          connection = undefined;
        }
      });
      client.connect({
        host: bastion.host,
        port: bastion.port,
        username: user,
        readyTimeout: timeoutMs,
        keepaliveInterval: 15_000,
        hostVerifier: (key: Buffer) => hostKey.verify(key),
        // The configured secret only; what the bastion answers goes to `record`, for the error.
        authHandler: login(record),
      });
    });
  const bastionClient = (): Promise<Client> => {
    // A closed tunnel never reconnects: a connection made now would outlive close() and hold the process.
    if (closed) return Promise.reject(closedError());
    connection ??= connectBastion().catch((error: unknown) => {
      connection = undefined;
      throw error;
    });
    return connection;
  };

  /** One connection to the listener, carried through a direct-tcpip channel; never rejects. */
  const forward = async (socket: Socket): Promise<void> => {
    socket.on('error', () => undefined);
    // Registered before the channel is asked for: a source that gives up while the bastion is still
    // opening the channel closes its socket in the meantime, and the channel must not outlive it.
    let channel: ClientChannel | undefined;
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      channel?.close();
    });
    if (closed) return void socket.destroy();
    let client: Client;
    try {
      client = await bastionClient();
    } catch (error) {
      if (!closed) failure = isConnectorAuthError(error) ? error : undefined;
      return void socket.destroy();
    }
    // close() ran during the login, or the source gave up waiting for it: no channel to ask for.
    if (closed || socket.destroyed) return void socket.destroy();
    try {
      client.forwardOut(
        '127.0.0.1',
        socket.remotePort ?? 0,
        destination.host,
        destination.port,
        (error: Error | undefined, opened: ClientChannel) => {
          if (error) {
            failure = forwardRefused(error, description, destination);
            socket.destroy();
            return;
          }
          channel = opened;
          // The socket closed while the channel was being opened: its 'close' has already run.
          if (socket.destroyed) return void opened.close();
          opened.on('error', () => socket.destroy());
          socket.pipe(opened).pipe(socket);
        },
      );
    } catch {
      // ssh2 throws when the SSH connection has ended since (its 'close' is still to come); the
      // source sees a closed connection, and the next one reconnects.
      socket.destroy();
    }
  };

  return {
    description,
    bastion: via,
    destination: { host: destination.host, port: destination.port },
    open() {
      if (closed) return Promise.reject(closedError());
      listening ??= (async () => {
        // The bastion first: its failures are the ones worth reporting, before any source traffic.
        await bastionClient();
        // close() ran during the login: no listener for a closed tunnel.
        if (closed) throw closedError();
        const listener = createServer((socket) => void forward(socket));
        await new Promise<void>((resolve, reject) => {
          listener.once('error', reject);
          listener.listen(0, '127.0.0.1', () => resolve());
        });
        // ... or while the listener started, before close() could see it: it is closed here.
        if (closed) {
          listener.close();
          throw closedError();
        }
        server = listener;
        return { host: '127.0.0.1', port: (listener.address() as AddressInfo).port };
      })().catch((error: unknown) => {
        listening = undefined;
        // A login that close() cut short fails as the closed tunnel, not as the bastion's fault.
        throw closed ? closedError() : error;
      });
      return listening;
    },
    takeFailure() {
      const taken = failure;
      failure = undefined;
      return taken;
    },
    async close() {
      closed = true;
      const listener = server;
      server = undefined;
      listening = undefined;
      connection = undefined;
      // Stop accepting; end every SSH connection, a login still under way too (waiting for it could
      // take timeout_seconds), and the forwarded connections, whose end the listener's close awaits.
      const stopped = listener && new Promise<void>((resolve) => listener.close(() => resolve()));
      for (const client of clients) client.end();
      for (const socket of sockets) socket.destroy();
      await stopped;
    },
  };
}

/** The key, parsed (and its decrypted form registered) now; or the password, already registered with the configuration. */
async function tunnelSecret(k: SshTunnelKeys, context: SshTunnelContext): Promise<SshLoginSecret> {
  const password = k.ssh_tunnel_password;
  if (password) return { kind: 'password', password: () => password };
  const key = await readSshPrivateKey(k.ssh_tunnel_private_key!, k.ssh_tunnel_private_key_passphrase, {
    keyKey: 'ssh_tunnel_private_key',
    passphraseKey: 'ssh_tunnel_private_key_passphrase',
    secrets: context.secrets,
  });
  return { kind: 'key', key: () => key };
}

/** A refused bastion login in the tunnel's keys: which secret key is set chooses the method. */
function tunnelLoginTerms(user: string, kind: SshLoginSecret['kind']): LoginTerms {
  const secretKey = kind === 'password' ? 'ssh_tunnel_password' : 'ssh_tunnel_private_key';
  return {
    kind,
    peer: 'bastion',
    user,
    userKey: 'ssh_tunnel_user',
    codePrefix: 'ssh_tunnel',
    secretKey,
    methodKey: secretKey,
    useOther: (other) =>
      other === 'key'
        ? "set 'ssh_tunnel_private_key' in place of 'ssh_tunnel_password'"
        : "set 'ssh_tunnel_password' in place of 'ssh_tunnel_private_key'",
  };
}

interface BastionFailure {
  description: string;
  terms: LoginTerms;
  record: LoginRecord;
  hostKeyRule: HostKeyRule;
  hostKey: HostKeyCheck;
  timeoutSeconds: number;
}

/** The bastion's refusals, in the sftp source's terms, naming the ssh_tunnel_* keys. */
function bastionError(error: Error & { level?: string; code?: unknown }, f: BastionFailure): ConnectorAuthError {
  const target = f.description;
  if (f.hostKey.refused()) return hostKeyMismatch(f.hostKeyRule, f.hostKey.presented(), target, error);
  if (error.level === 'client-authentication') return loginRefused(target, f.record, f.terms, error);
  if (error.level === 'client-timeout') {
    return new SourceUnreachableError(`${target} failed: no SSH answer from the bastion within ${f.timeoutSeconds}s`, {
      code: 'timeout',
      key: 'ssh_tunnel_host',
      hint: "check 'ssh_tunnel_host' and 'ssh_tunnel_port' and that no firewall drops the connection, or raise 'timeout_seconds'",
      cause: error,
    });
  }
  const code = typeof error.code === 'string' ? error.code : '';
  const system = SYSTEM[code];
  return new SourceUnreachableError(
    `${target} failed: ${system ? `the bastion: ${system}` : 'the SSH connection to the bastion failed'}`,
    {
      code: system ? code.toLowerCase() : 'ssh_tunnel_failed',
      key: 'ssh_tunnel_host',
      hint: "check 'ssh_tunnel_host' and 'ssh_tunnel_port', and that the bastion's SSH server accepts connections there",
      cause: error,
    },
  );
}

/** The bastion refused to open the channel: forwarding forbidden, or the source unreachable from it. */
function forwardRefused(
  error: Error & { reason?: unknown },
  description: string,
  destination: TunnelDestination,
): SourceUnreachableError {
  // RFC 4254 §5.1 reason codes: 1 administratively prohibited, 2 connect failed.
  const prohibited = error.reason === 1 || /prohibited/i.test(error.message);
  const reason = prohibited
    ? 'forwarding is not allowed for this user'
    : /Connection refused/i.test(error.message)
      ? 'connection refused'
      : 'the channel could not be opened';
  return new SourceUnreachableError(
    `${description} failed: the bastion could not connect to ${bracketed(destination.host)}:${destination.port} (${reason})`,
    {
      code: prohibited ? 'ssh_tunnel_forwarding_refused' : 'ssh_tunnel_destination_unreachable',
      key: prohibited ? 'ssh_tunnel_user' : (destination.key ?? 'host'),
      hint: prohibited
        ? "ask the bastion's administrator to allow TCP forwarding (AllowTcpForwarding) for 'ssh_tunnel_user'"
        : destination.key
          ? `check '${destination.key}' as the bastion sees it (names resolve on the bastion)`
          : "check 'host' and 'port' as the bastion sees them (names resolve on the bastion)",
      cause: error,
    },
  );
}
