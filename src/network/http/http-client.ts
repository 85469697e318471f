import type { Dispatcher } from 'undici';
import { classifyNetworkError, type RequestContext } from '../failures/index.js';
import { headersDeadline } from './headers-deadline.js';
import { undiciReply, type HttpReply } from './http-reply.js';
import { identityOf, portOf, routeCarries, type HttpRoute } from '../http-route.js';
import { tlsConnectOptions, type TlsSettings } from '../tls/index.js';
import { undiciCore, undiciFetch, type UndiciCore } from './undici-modules.js';

/**
 * One HTTP client per source: an undici Agent that keeps connections alive (a TLS handshake per
 * connection, not per request) and carries the source's TLS material, and, for a source behind a
 * bastion, the route that dials its origin through the SSH tunnel (http-route.ts). undici is
 * loaded by the first request (or `prepare()`), so a CLI command that never sends one does not
 * load it; its fetch() only by the first send().
 */

export interface HttpRequestInit {
  method?: string;
  headers?: Headers;
  body?: string | Uint8Array | URLSearchParams | null;
  redirect?: 'follow' | 'manual';
  signal?: AbortSignal;
  /**
   * What `timeout_seconds` bounds: the whole exchange, body included (`whole`, the default: a JSON
   * API's answer), or the wait for the answer's headers (`headers`: a file download, whose body may
   * take as long as it keeps arriving; a pause of `timeout_seconds` in it still fails, as a timeout).
   */
  deadline?: 'whole' | 'headers';
}

export class HttpClient {
  readonly #tls: TlsSettings;
  readonly #timeoutMs: number;
  readonly #route: HttpRoute | undefined;
  #agent: Transport | undefined;

  constructor(options: { tls: TlsSettings; timeoutSeconds: number; route?: HttpRoute }) {
    this.#tls = options.tls;
    this.#timeoutMs = options.timeoutSeconds * 1000;
    this.#route = options.route;
  }

  /**
   * Sends a request; a network failure throws a classified error (exit 4 or 5), an HTTP status does
   * not: the caller decides what a status means.
   */
  async send(
    url: URL,
    init: HttpRequestInit,
    context: Omit<RequestContext, 'url' | 'method' | 'timeoutSeconds'>,
  ): Promise<Response> {
    const { dispatcher } = this.prepare();
    const fetch = undiciFetch();
    const { signal, method, classify, headersArrived } = this.#begin(url, init, context);
    try {
      const response = (await fetch(url, {
        method,
        // Plain entries: the global Headers type and undici's differ, the wire form does not.
        headers: init.headers ? Object.fromEntries(init.headers) : undefined,
        body: init.body ?? null,
        redirect: init.redirect ?? 'follow',
        signal,
        dispatcher,
      })) as unknown as Response;
      if (!response.body || NULL_BODY_STATUSES.has(response.status)) return response;
      if (init.deadline === 'headers') headersArrived();
      // The body arrives after send() returned: its failures (a pause longer than timeout_seconds,
      // a reset) are classified as the request's would be, whoever reads it (source.json(), or a
      // connector's own response.json()), so they end the run with exit 4 naming the URL.
      const classified = new Response(classifiedBody(response.body, classify), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
      // A constructed Response has no URL of its own: the one the answer came from (after redirects) is kept.
      Object.defineProperties(classified, { url: { value: response.url }, redirected: { value: response.redirected } });
      return classified;
    } catch (error) {
      throw classify(error);
    } finally {
      headersArrived();
    }
  }

  /**
   * The lean form of send() for JSON APIs: undici's request() instead of its fetch(), so no WHATWG
   * streams, Headers or Response objects per request (listing 100,000 records costs ~15% less CPU,
   * bench/paging.ts). Redirects are not followed: a 3xx is the answer (the REST source follows them
   * itself, hop by hop, deciding where its credential goes). Errors, also those while reading the
   * body, are classified as send()'s are.
   */
  async request(
    url: URL,
    init: HttpRequestInit,
    context: Omit<RequestContext, 'url' | 'method' | 'timeoutSeconds'>,
  ): Promise<HttpReply> {
    const { dispatcher, request } = this.prepare();
    const { signal, method, classify, headersArrived } = this.#begin(url, init, context);
    try {
      const headers: Record<string, string> = init.headers ? Object.fromEntries(init.headers) : {};
      // fetch() types a body the caller left untyped; request() must do the same for a server to read it.
      if (init.body != null && !init.headers?.has('content-type')) {
        if (init.body instanceof URLSearchParams)
          headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
        else if (typeof init.body === 'string') headers['content-type'] = 'text/plain;charset=UTF-8';
      }
      const data = await request(url, {
        method: method as Dispatcher.HttpMethod,
        headers,
        body: init.body instanceof URLSearchParams ? init.body.toString() : (init.body ?? null),
        signal,
        dispatcher,
      });
      return undiciReply(data, url, classify);
    } catch (error) {
      throw classify(error);
    } finally {
      // request() resolves with the headers: a 'headers' deadline ends here.
      headersArrived();
    }
  }

  /**
   * What both kinds of request start with: the deadline (timeout_seconds, and the caller's signal)
   * and the error classifier. With `deadline: 'headers'`, `headersArrived()` ends the deadline.
   */
  #begin(url: URL, init: HttpRequestInit, context: Omit<RequestContext, 'url' | 'method' | 'timeoutSeconds'>) {
    const deadline = init.deadline === 'headers' ? headersDeadline(this.#timeoutMs) : undefined;
    const headersArrived = deadline?.disarm ?? (() => {});
    const timeout = deadline?.signal ?? AbortSignal.timeout(this.#timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const method = init.method ?? 'GET';
    const classify = (error: unknown) =>
      classifyNetworkError(error, { ...context, url, method, timeoutSeconds: this.#timeoutMs / 1000 });
    return { signal, method, classify, headersArrived };
  }

  async close(): Promise<void> {
    const agent = this.#agent;
    this.#agent = undefined;
    if (agent) await agent.dispatcher.close();
  }

  /**
   * Loads undici and makes the dispatcher, sending nothing: a probe calls it before it starts its
   * clock, so the time it reports is the request's, not the loading of the HTTP client's code.
   */
  prepare(withFetch = false): Transport {
    if (withFetch) undiciFetch();
    return (this.#agent ??= this.#createAgent());
  }

  #createAgent(): Transport {
    const { Agent, request, buildConnector } = undiciCore();
    const tls = tlsConnectOptions(this.#tls);
    const dispatcher = new Agent({
      keepAliveTimeout: 30_000,
      // A body that stops arriving for timeout_seconds fails (as a timeout), whatever the deadline.
      bodyTimeout: this.#timeoutMs,
      connect: this.#route ? routedConnector(buildConnector, tls, this.#route) : tls,
    });
    return { dispatcher, request };
  }
}

/**
 * undici's own connector, except that connections to the route's origin are dialled at the route's
 * local address. Their certificate is checked against the origin's host, never the address dialled
 * (undici already takes the SNI name from the origin). A route that cannot open (the bastion
 * refused the login, say) fails the request with its own classified error.
 */
function routedConnector(
  build: typeof import('undici').buildConnector,
  tls: ReturnType<typeof tlsConnectOptions>,
  route: HttpRoute,
): import('undici').buildConnector.connector {
  const direct = build(tls);
  const routed = build({ ...tls, checkServerIdentity: identityOf(route.destination.host) });
  return (options, callback) => {
    if (!routeCarries(route, options.hostname, portOf(options))) return direct(options, callback);
    route
      .open()
      .then((local) => routed({ ...options, hostname: local.host, port: String(local.port) }, callback))
      .catch((error: Error) => callback(error, null));
  };
}

/** Statuses a constructed Response may not give a body (the fetch standard's null body statuses). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** `body` with its failures turned into the project's classified errors. */
function classifiedBody(
  body: ReadableStream<Uint8Array>,
  classify: (error: unknown) => Error,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(classify(error));
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

interface Transport {
  dispatcher: Dispatcher;
  request: UndiciCore['request'];
}
