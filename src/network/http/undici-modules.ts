/**
 * undici, loaded through `require()` and by the pieces a request needs. Its index module loads
 * everything undici has (its fetch and WHATWG classes, WebSocket, EventSource, mocks, caches,
 * cookies) and an ES `import` of it adds Node's CommonJS export scan: 75–110 ms of a `debug` run's
 * start-up, where the dispatcher and `request()` take 25–30 ms and fetch 20–40 more. The
 * paths are undici's own files (its package has no `exports` map); the version is pinned, and
 * every HTTP test goes through them.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const load = createRequire(import.meta.url);

export interface UndiciCore {
  Agent: typeof Undici.Agent;
  buildConnector: typeof Undici.buildConnector;
  /** undici's `request(url, options)`, for a URL object and an explicit dispatcher. */
  request(
    url: URL,
    options: Omit<Undici.Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Undici.Dispatcher },
  ): Promise<Undici.Dispatcher.ResponseData>;
}

let core: UndiciCore | undefined;
let fetch: typeof Undici.fetch | undefined;

/** The dispatcher, its connector and `request()`: what the lean request path needs. */
export function undiciCore(): UndiciCore {
  if (core) return core;
  const Agent = load('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
  const buildConnector = load('undici/lib/core/connect.js') as typeof Undici.buildConnector;
  const apiRequest = load('undici/lib/api/api-request.js') as (
    this: Undici.Dispatcher,
    options: Undici.Dispatcher.RequestOptions,
  ) => Promise<Undici.Dispatcher.ResponseData>;
  // What undici's exported request() does with a URL (index.js, makeDispatcher): origin and path
  // from the URL, on the dispatcher given.
  const request: UndiciCore['request'] = (url, { dispatcher, ...options }) =>
    apiRequest.call(dispatcher, {
      ...options,
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: options.method ?? 'GET',
    });
  return (core = { Agent, buildConnector, request });
}

/** undici's fetch(), loaded at the first request that needs a WHATWG Response. */
export function undiciFetch(): typeof Undici.fetch {
  return (fetch ??= (load('undici/lib/web/fetch/index.js') as { fetch: typeof Undici.fetch }).fetch);
}
