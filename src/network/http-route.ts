import type { Agent } from 'node:http';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { unbracketed } from './target.js';

/**
 * Where connections to one origin are dialled when they must not go straight to it: an HTTP source
 * behind a bastion is reached through the SSH tunnel's listener on 127.0.0.1 (ssh-tunnel.ts). Only
 * the address dialled changes. The Host header, the SNI name and the certificate check all stay
 * the origin's own, so a tunnel can never make an untrusted server acceptable.
 *
 * One route carries one origin (a rest source's `base_url`, an s3 source's `endpoint`); any other
 * origin (a token endpoint, an absolute URL in update()) is dialled directly, as without a route.
 * An SshTunnel is an HttpRoute.
 */
export interface HttpRoute {
  /** The origin's host (IPv6 without brackets) and port. */
  readonly destination: { readonly host: string; readonly port: number };
  /** The local address that reaches the destination; the first call opens the tunnel. */
  open(): Promise<{ host: string; port: number }>;
}

/** True when `route` carries connections to `host`:`port` (host as a URL gives it, brackets allowed). */
export function routeCarries(route: HttpRoute | undefined, host: string, port: number): route is HttpRoute {
  return route !== undefined && unbracketed(host) === route.destination.host && port === route.destination.port;
}

/** The port a URL names, or its scheme's default. */
export function portOf(url: { port: string | number; protocol: string }): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

/** The tunnel destination that carries `url`'s origin; `key` is the configuration key that names it. */
export function urlDestination(url: URL, key: string): { host: string; port: number; key: string } {
  return { host: unbracketed(url.hostname), port: portOf(url), key };
}

/**
 * What a TLS connection to `url` needs to dial and to check: the tunnel's listener when the route
 * carries the origin, else the origin itself; SNI and the certificate's name always the origin's.
 */
export async function tlsDialOptions(
  url: URL,
  route: HttpRoute | undefined,
): Promise<{
  host: string;
  port: number;
  servername?: string;
  checkServerIdentity: (host: string, cert: PeerCertificate) => Error | undefined;
}> {
  const host = unbracketed(url.hostname);
  const port = portOf(url);
  const dial = routeCarries(route, host, port) ? await route.open() : { host, port };
  return { ...dial, ...(isIP(host) ? {} : { servername: host }), checkServerIdentity: identityOf(host) };
}

type CreateConnection = (
  options: { host?: string; port?: number | string },
  oncreate: (error: Error | null, socket?: Duplex) => void,
) => Duplex | undefined;

/**
 * A node:http or node:https Agent (what the AWS SDK's request handler takes) that dials the route's
 * origin through it, by the HTTP client's rule: only the address changes, and the certificate is
 * checked against the origin's host. Node's Agent lets createConnection answer later through
 * `oncreate`, which is how the tunnel gets to open first.
 */
export function routeAgent<A extends Agent>(agent: A, route: HttpRoute): A {
  const target = agent as unknown as { createConnection: CreateConnection };
  const direct = target.createConnection.bind(agent);
  target.createConnection = (options, oncreate) => {
    if (!routeCarries(route, options.host ?? '', Number(options.port))) return direct(options, oncreate);
    route
      .open()
      .then((local) =>
        oncreate(
          null,
          direct(
            { ...options, ...local, checkServerIdentity: identityOf(route.destination.host) } as typeof options,
            oncreate,
          ),
        ),
      )
      .catch((error: Error) => oncreate(error));
    return undefined;
  };
  return agent;
}

/** Node's certificate name check, held to `host` whatever address the socket was dialled at. */
export function identityOf(host: string): (dialled: string, cert: PeerCertificate) => Error | undefined {
  return (_dialled, cert) => checkServerIdentity(host, cert);
}
