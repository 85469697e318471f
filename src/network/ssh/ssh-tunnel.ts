import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Client, ClientChannel } from 'ssh2';
import { isConnectorAuthError, type ConnectorAuthError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import { firstLineOf } from '../one-line.js';
import { bracketed } from '../target.js';
import { hostKeyCheck, type HostKeyRule } from './ssh-host-key.js';
import type { LoginRecord, SshAuthHandler } from './ssh-login.js';
import type { LoginTerms } from './ssh-login-refusal.js';
import {
  bastionClosedDuringLogin,
  bastionError,
  forwardRefused,
  tunnelClosed,
  type TunnelDestination,
} from './ssh-tunnel-failures.js';

/**
 * An SSH tunnel through a bastion for any TCP source: a listener on 127.0.0.1 (ephemeral port)
 * whose every connection is forwarded by the bastion to the source's own host and port (ssh2's
 * `forwardOut`, a direct-tcpip channel). The source connects to the listener and keeps speaking its
 * own protocol, TLS included: it must still verify the certificate against its real host name.
 *
 * Its life: made from a configuration by `prepareSshTunnel` (prepare-ssh-tunnel.ts), which checks
 * everything that needs no network; `open()` logs in to the bastion (once) and starts the listener,
 * answering the forwarded port; each connection to that port gets its own channel; `close()` ends
 * it for good. A lost SSH connection is made again by the next forwarded connection.
 */

/** What `prepareSshTunnel` settled from the configuration: everything a tunnel needs but the network. */
export interface SshTunnelPlan {
  bastion: { host: string; port: number };
  /** "ssh://jump@bastion.example.com:22" */
  via: string;
  user: string;
  destination: TunnelDestination;
  hostKeyRule: HostKeyRule;
  /** The configured secret's login, for one connection; what the bastion answers goes to `record`. */
  login: (record: LoginRecord) => SshAuthHandler;
  /** How a refused login is explained (the ssh_tunnel_* keys). */
  terms: LoginTerms;
  /**
   * ssh2's module, imported when the tunnel was prepared. Typed loosely on purpose: this interface
   * is in the package's declarations, which must stand without @types/ssh2 (as ssh-login.ts's do).
   */
  ssh2: { Client: new () => unknown };
  timeoutSeconds: number;
  log: Pick<Logger, 'debug'>;
}

export class SshTunnel {
  /** "ssh tunnel ssh://jump@bastion.example.com:22 → db.internal:5432": for messages. */
  readonly description: string;
  /** "ssh://jump@bastion.example.com:22" */
  readonly bastion: string;
  /** Where the bastion forwards to: with open(), what an HttpRoute is (http-route.ts). */
  readonly destination: { readonly host: string; readonly port: number };

  readonly #plan: SshTunnelPlan;
  #server: Server | undefined;
  #listening: Promise<{ host: string; port: number }> | undefined;
  #connection: Promise<Client> | undefined;
  /** The client behind `#connection`, to tell its close from an older client's. */
  #newest: Client | undefined;
  #failure: ConnectorAuthError | undefined;
  // Set for good by close(). open() awaits the login and the listener, and close() may run while it
  // waits: each step after an await checks this, so that nothing starts for a tunnel already closed.
  #closed = false;
  /** Every SSH client until its connection closes, ready or still logging in: close() ends them all. */
  readonly #clients = new Set<Client>();
  /** The listener's connections still open: close() ends them rather than wait for the source to. */
  readonly #sockets = new Set<Socket>();

  constructor(plan: SshTunnelPlan) {
    this.#plan = plan;
    this.bastion = plan.via;
    this.destination = { host: plan.destination.host, port: plan.destination.port };
    this.description = `ssh tunnel ${plan.via} → ${bracketed(plan.destination.host)}:${plan.destination.port}`;
  }

  /** Connects to the bastion (once) and starts the listener: the address the source connects to. */
  open(): Promise<{ host: string; port: number }> {
    if (this.#closed) return Promise.reject(tunnelClosed(this.description));
    this.#listening ??= this.#listen().catch((error: unknown) => {
      this.#listening = undefined;
      // A login that close() cut short fails as the closed tunnel, not as the bastion's fault.
      throw this.#closed ? tunnelClosed(this.description) : error;
    });
    return this.#listening;
  }

  /**
   * Why the latest forwarded connection was closed before it carried anything (the bastion refused
   * the channel, or the SSH connection failed), once: a source whose connection broke asks first.
   */
  takeFailure(): ConnectorAuthError | undefined {
    const taken = this.#failure;
    this.#failure = undefined;
    return taken;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const listener = this.#server;
    this.#server = undefined;
    this.#listening = undefined;
    this.#connection = undefined;
    // Stop accepting; end every SSH connection, a login still under way too (waiting for it could
    // take timeout_seconds), and the forwarded connections, whose end the listener's close awaits.
    const stopped = listener && new Promise<void>((resolve) => listener.close(() => resolve()));
    for (const client of this.#clients) client.end();
    for (const socket of this.#sockets) socket.destroy();
    await stopped;
  }

  async #listen(): Promise<{ host: string; port: number }> {
    // The bastion first: its failures are the ones worth reporting, before any source traffic.
    await this.#bastionClient();
    // close() ran during the login: no listener for a closed tunnel.
    if (this.#closed) throw tunnelClosed(this.description);
    const listener = createServer((socket) => void this.#forward(socket));
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(0, '127.0.0.1', () => resolve());
    });
    // ... or while the listener started, before close() could see it: it is closed here.
    if (this.#closed) {
      listener.close();
      throw tunnelClosed(this.description);
    }
    this.#server = listener;
    return { host: '127.0.0.1', port: (listener.address() as AddressInfo).port };
  }

  /** The SSH connection in use, made (and logged in) when there is none. */
  #bastionClient(): Promise<Client> {
    // A closed tunnel never reconnects: a connection made now would outlive close() and hold the process.
    if (this.#closed) return Promise.reject(tunnelClosed(this.description));
    this.#connection ??= this.#connectBastion().catch((error: unknown) => {
      this.#connection = undefined;
      throw error;
    });
    return this.#connection;
  }

  #connectBastion(): Promise<Client> {
    const plan = this.#plan;
    return new Promise<Client>((resolve, reject) => {
      const client = new plan.ssh2.Client() as Client;
      this.#clients.add(client);
      this.#newest = client;
      const hostKey = hostKeyCheck(plan.hostKeyRule);
      const record: LoginRecord = {};
      let ready = false;
      client.on('ready', () => {
        ready = true;
        // Logged in after close() (which ended it, but the bastion was quicker): not kept.
        if (this.#closed) {
          client.end();
          return reject(tunnelClosed(this.description));
        }
        resolve(client);
      });
      // Always listened to: an SSH connection failing later must not end the process.
      client.on('error', (error: Error & { level?: string }) => {
        if (!ready)
          return reject(
            bastionError(error, {
              description: this.description,
              terms: plan.terms,
              record,
              hostKeyRule: plan.hostKeyRule,
              hostKey,
              timeoutSeconds: plan.timeoutSeconds,
            }),
          );
        plan.log.debug(
          `${this.description}: the SSH connection failed (${firstLineOf(error)}); the next connection reconnects`,
        );
      });
      client.on('close', () => {
        this.#clients.delete(client);
        if (!ready) reject(bastionClosedDuringLogin(this.description));
        // Only the connection in use is forgotten: an older one closing late must not drop a newer one.
        if (this.#newest === client) {
          this.#newest = undefined;
          this.#connection = undefined;
        }
      });
      client.connect({
        host: plan.bastion.host,
        port: plan.bastion.port,
        username: plan.user,
        readyTimeout: plan.timeoutSeconds * 1000,
        keepaliveInterval: 15_000,
        hostVerifier: (key: Buffer) => hostKey.verify(key),
        // The configured secret only; what the bastion answers goes to `record`, for the error.
        authHandler: plan.login(record),
      });
    });
  }

  /** One connection to the listener, carried through a direct-tcpip channel; never rejects. */
  async #forward(socket: Socket): Promise<void> {
    socket.on('error', () => undefined);
    // Registered before the channel is asked for: a source that gives up while the bastion is still
    // opening the channel closes its socket in the meantime, and the channel must not outlive it.
    let channel: ClientChannel | undefined;
    this.#sockets.add(socket);
    socket.once('close', () => {
      this.#sockets.delete(socket);
      channel?.close();
    });
    if (this.#closed) return void socket.destroy();
    let client: Client;
    try {
      client = await this.#bastionClient();
    } catch (error) {
      if (!this.#closed) this.#failure = isConnectorAuthError(error) ? error : undefined;
      return void socket.destroy();
    }
    // close() ran during the login, or the source gave up waiting for it: no channel to ask for.
    if (this.#closed || socket.destroyed) return void socket.destroy();
    const destination = this.#plan.destination;
    try {
      client.forwardOut(
        '127.0.0.1',
        socket.remotePort ?? 0,
        destination.host,
        destination.port,
        (error: Error | undefined, opened: ClientChannel) => {
          if (error) {
            this.#failure = forwardRefused(error, this.description, destination);
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
  }
}
