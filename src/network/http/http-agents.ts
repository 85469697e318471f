import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
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
  const plain = routed(new HttpAgent(options));
  const secure = routed(new HttpsAgent({ ...options, ...tlsConnectOptions(tls) }));
  return {
    for: (url) => (url.protocol === 'https:' ? secure : plain),
    destroy() {
      plain.destroy();
      secure.destroy();
    },
  };
}
