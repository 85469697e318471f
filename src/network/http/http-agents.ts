import type { Agent as HttpAgent } from 'node:http';
import { routeAgent, type HttpRoute } from '../http-route.js';
import { tlsConnectOptions, type TlsSettings } from '../tls/index.js';

/**
 * The connections of one HTTP client: Node's own agents, one for http: and one for https:, that
 * keep connections alive (a TLS handshake per connection, not per request) and carry the source's
 * TLS material. For a source behind a bastion, the route dials its origin through the SSH tunnel
 * (http-route.ts); any other origin is dialled directly.
 *
 * Node's http client, not undici's: it is part of Node's own start-up snapshot, so the first
 * request of a run costs ~8 ms and 2 MB of loading where undici's took 50–80 ms and 17 MB, which
 * was a fifth of a REST connector's `debug` (docs/benchmarks.md).
 */
export interface HttpAgents {
  for(url: URL): HttpAgent;
  /** Closes every connection, idle or not. */
  destroy(): void;
}

/** Idle connections are closed after this long, as undici's default keep-alive did. */
const IDLE_MS = 30_000;

export function createHttpAgents(tls: TlsSettings, route?: HttpRoute): HttpAgents {
  // Idle sockets are unref'd by Node's agent: they never keep a finished run's process alive.
  const options = { keepAlive: true, timeout: IDLE_MS, scheduling: 'lifo' as const };
  const routed = <A extends HttpAgent>(agent: A): A => (route ? routeAgent(agent, route) : agent);
  // Not an ES import of node:http: on Node 22+ that reads the module's lazy WebSocket export, which
  // loads undici (~19 ms of every Airbyte command, which starts a new container each time).
  const plain = routed(new (process.getBuiltinModule('node:http').Agent)(options));
  // Node's https (and with it tls) is loaded by the first https: request: a plain http source never
  // loads it (2–3 ms and 2 MB of a start).
  let secure: HttpAgent | undefined;
  const secureAgent = () =>
    (secure ??= routed(new (process.getBuiltinModule('node:https').Agent)({ ...options, ...tlsConnectOptions(tls) })));
  return {
    for: (url) => (url.protocol === 'https:' ? secureAgent() : plain),
    destroy() {
      plain.destroy();
      secure?.destroy();
    },
  };
}
