import { classifyNetworkError, type RequestContext } from '../failures/index.js';
import type { HttpRoute } from '../http-route.js';
import type { TlsSettings } from '../tls/index.js';
import { fetchResponse } from './fetch-response.js';
import { HeaderList } from './header-list.js';
import { headersDeadline } from './headers-deadline.js';
import { createHttpAgents, type HttpAgents } from './http-agents.js';
import { nodeReply, type HttpReply } from './http-reply.js';
import { exchange } from './node-exchange.js';

/**
 * One HTTP client per source: Node's agents that keep connections alive and carry the source's TLS
 * material (http-agents.ts), and, for a source behind a bastion, the route that dials its origin
 * through the SSH tunnel (http-route.ts). Two shapes of answer: the lean HttpReply of request() for
 * JSON APIs, token endpoints and probes, and a WHATWG Response from send() for callers that want
 * fetch's (a connector's source.fetch(), a download).
 */

export interface HttpRequestInit {
  method?: string;
  headers?: Headers;
  body?: string | Uint8Array | URLSearchParams | null;
  /** send() only: follow redirects as fetch does, or answer with the 3xx. request() never follows. */
  redirect?: 'follow' | 'manual';
  signal?: AbortSignal;
  /**
   * What `timeout_seconds` bounds: the whole exchange, body included (`whole`, the default: a JSON
   * API's answer), or the wait for the answer's headers (`headers`: a file download, whose body may
   * take as long as it keeps arriving; a pause of `timeout_seconds` in it still fails, as a timeout).
   */
  deadline?: 'whole' | 'headers';
}

type Context = Omit<RequestContext, 'url' | 'method' | 'timeoutSeconds'>;

/** fetch's limit on redirects followed. */
const MAX_REDIRECTS = 20;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Dropped when a redirect leaves the origin (as fetch does), and with the body when it becomes a GET. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

export class HttpClient {
  readonly #tls: TlsSettings;
  readonly #timeoutMs: number;
  readonly #route: HttpRoute | undefined;
  #agents: HttpAgents | undefined;

  constructor(options: { tls: TlsSettings; timeoutSeconds: number; route?: HttpRoute }) {
    this.#tls = options.tls;
    this.#timeoutMs = options.timeoutSeconds * 1000;
    this.#route = options.route;
  }

  /**
   * The lean request for JSON APIs: the answer's body is read with text() (or chunk by chunk),
   * without WHATWG streams. Redirects are not followed: a 3xx is the answer (the REST source follows
   * them itself, hop by hop, deciding where its credential goes). A network failure throws a
   * classified error (exit 4 or 5), also while the body is read; an HTTP status does not.
   */
  async request(url: URL, init: HttpRequestInit, context: Context): Promise<HttpReply> {
    const { signal, method, classify, headersArrived } = this.#begin(url, init, context);
    try {
      const answer = await exchange(this.#prepare(), url, this.#exchangeInit(method, init, signal));
      return nodeReply(answer, url, classify);
    } catch (error) {
      throw classify(error);
    } finally {
      headersArrived();
    }
  }

  /** Like fetch: a WHATWG Response, redirects followed unless `redirect: 'manual'`. */
  async send(url: URL, init: HttpRequestInit, context: Context): Promise<Response> {
    const { signal, method: first, classify, headersArrived } = this.#begin(url, init, context);
    let hop: Hop = { url, method: first, body: init.body, headers: new HeaderList(init.headers) };
    try {
      for (let redirects = 0; ; redirects++) {
        const answer = await exchange(this.#prepare(), hop.url, this.#exchangeInit(hop.method, { ...hop }, signal));
        const location = answer.headers.location;
        if (init.redirect === 'manual' || !REDIRECT_STATUSES.has(answer.statusCode ?? 0) || !location) {
          if (init.deadline === 'headers') headersArrived();
          return await fetchResponse(answer, { url: hop.url, method: hop.method, redirected: redirects > 0 }, classify);
        }
        answer.resume();
        if (redirects === MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
        hop = redirected(hop, answer.statusCode!, new URL(location, hop.url));
      }
    } catch (error) {
      throw classify(error);
    } finally {
      headersArrived();
    }
  }

  async close(): Promise<void> {
    const agents = this.#agents;
    this.#agents = undefined;
    agents?.destroy();
  }

  /** Makes the agents, sending nothing (the first request does it too). */
  prepare(): void {
    this.#prepare();
  }

  #prepare(): HttpAgents {
    return (this.#agents ??= createHttpAgents(this.#tls, this.#route));
  }

  #exchangeInit(method: string, init: Pick<HttpRequestInit, 'headers' | 'body'>, signal: AbortSignal) {
    const headers: Record<string, string> = init.headers ? Object.fromEntries(init.headers) : {};
    // fetch types a body the caller left untyped; so does this client, for a server to read it.
    if (init.body != null && !init.headers?.has('content-type')) {
      if (init.body instanceof URLSearchParams)
        headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
      else if (typeof init.body === 'string') headers['content-type'] = 'text/plain;charset=UTF-8';
    }
    const body = init.body instanceof URLSearchParams ? init.body.toString() : (init.body ?? null);
    return { method, headers, body, signal, idleTimeoutMs: this.#timeoutMs };
  }

  /**
   * What both kinds of request start with: the deadline (timeout_seconds, and the caller's signal)
   * and the error classifier. With `deadline: 'headers'`, `headersArrived()` ends the deadline.
   */
  #begin(url: URL, init: HttpRequestInit, context: Context) {
    const deadline = init.deadline === 'headers' ? headersDeadline(this.#timeoutMs) : undefined;
    const headersArrived = deadline?.disarm ?? (() => {});
    const timeout = deadline?.signal ?? AbortSignal.timeout(this.#timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const method = init.method ?? 'GET';
    const classify = (error: unknown) =>
      classifyNetworkError(error, { ...context, url, method, timeoutSeconds: this.#timeoutMs / 1000 });
    return { signal, method, classify, headersArrived };
  }
}

interface Hop {
  url: URL;
  method: string;
  body: HttpRequestInit['body'];
  headers: Headers;
}

/** The next request of a redirect, by fetch's rules (a 303, or a POST's 301/302, becomes a body-less GET). */
function redirected(hop: Hop, status: number, next: URL): Hop {
  const headers = new HeaderList(hop.headers);
  const toGet =
    (status === 303 && hop.method !== 'HEAD') || ((status === 301 || status === 302) && hop.method === 'POST');
  if (toGet) for (const name of BODY_HEADERS) headers.delete(name);
  if (next.origin !== hop.url.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
  return { url: next, method: toGet ? 'GET' : hop.method, body: toGet ? null : hop.body, headers };
}
