import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigurationError } from '../../../errors/index.js';
import type { Logger } from '../../../log/index.js';
import { unbracketed } from '../../../network/index.js';

/**
 * The redirect end of an authorization code flow started from a terminal (RFC 8252 §7.3): an HTTP
 * server on the loopback interface that waits for the browser to come back with the authorization
 * response. Nothing else on the machine can be told apart from the browser, so only a response
 * carrying this flow's `state` counts; anything else is answered 400 and the wait goes on (a stray
 * request must neither end the flow nor slip in a code of its own).
 *
 * The browser's request is held open until the caller has used the response (exchanged the code,
 * saved the token), so the page says what happened, not just "received".
 */

export interface LoopbackRedirect {
  /** The redirect URI to send: the configured one, with the port the server got when none was set. */
  readonly uri: URL;
  /** The authorization response (`code` or `error`, with the expected `state`), once one arrives. */
  readonly response: Promise<URLSearchParams>;
  /** Answers the held browser request with the flow's outcome, then stops the server. */
  finish(outcome: { ok: boolean; message: string }): Promise<void>;
}

/** A browser request is not held longer than this if the caller never finishes (it then gets a neutral page). */
const HOLD_LIMIT_MS = 60_000;

/**
 * Listens where `uri` says: its loopback host, its port (an ephemeral one when it names none) and
 * its path. `localhost` is served on both 127.0.0.1 and ::1, since a browser may resolve it to either.
 */
export async function listenForRedirect(options: {
  uri: URL;
  state: string;
  log: Logger;
  key: string;
}): Promise<LoopbackRedirect> {
  const redirect = new RedirectReceiver(options);
  await redirect.listen();
  return redirect;
}

/** The servers, and the one browser request that carried the state, held until `finish`. */
class RedirectReceiver implements LoopbackRedirect {
  readonly response: Promise<URLSearchParams>;
  readonly #options: { uri: URL; state: string; log: Logger; key: string };
  #settle!: (params: URLSearchParams) => void;
  #held: ServerResponse | undefined;
  #holdTimer: NodeJS.Timeout | undefined;
  #done = false;
  readonly #servers: Server[] = [];
  #port: number;
  #uri: URL | undefined;

  constructor(options: { uri: URL; state: string; log: Logger; key: string }) {
    this.#options = options;
    this.response = new Promise<URLSearchParams>((resolve) => (this.#settle = resolve));
    this.#port = options.uri.port === '' ? 0 : Number(options.uri.port);
  }

  /** The URI with the port the servers got; known once `listen` has run. */
  get uri(): URL {
    return this.#uri!;
  }

  /** One server per host of the URI, all on the port the first one got. */
  async listen(): Promise<void> {
    const named = unbracketed(this.#options.uri.hostname);
    const hosts = named === 'localhost' ? ['127.0.0.1', '::1'] : [named];
    for (const [index, host] of hosts.entries()) {
      // Named where used: this file loads with the method's keys (`airbyte spec` reads every method's),
      // and an ES import of node:http loads undici on Node 22+ (http-agents.ts says how).
      const server = process.getBuiltinModule('node:http').createServer((req, res) => this.#handle(req, res));
      try {
        await listen(server, host, this.#port);
      } catch (error) {
        // ::1 missing (no IPv6 on the machine) still leaves 127.0.0.1 for `localhost`.
        if (index > 0 && (error as { code?: string }).code === 'EADDRNOTAVAIL') continue;
        await Promise.all(this.#servers.map(close));
        throw this.#unavailable(error);
      }
      this.#port = (server.address() as AddressInfo).port;
      this.#servers.push(server);
    }
    this.#uri = new URL(this.#options.uri.href);
    this.#uri.port = String(this.#port);
  }

  async finish(outcome: { ok: boolean; message: string }): Promise<void> {
    clearTimeout(this.#holdTimer);
    const res = this.#held;
    this.#held = undefined;
    if (res) {
      const title = outcome.ok ? 'Authorized' : 'Authorization failed';
      await new Promise<void>((resolve) => page(res, outcome.ok ? 200 : 400, title, outcome.message, resolve));
    }
    await Promise.all(this.#servers.map(close));
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const { uri, state, log } = this.#options;
    const path = uri.pathname;
    const url = new URL(req.url ?? '/', 'http://loopback');
    if (req.method !== 'GET' || url.pathname !== path)
      return page(res, 404, 'Not found', 'This address only receives the authorization response.');
    if (this.#done) return page(res, 410, 'Already received', 'connector-auth has its answer; you can close this tab.');
    if (url.searchParams.get('state') !== state) {
      log.warning(
        `a request to the redirect URI ${uri.origin}${path} did not carry this authorization's state; it was ignored`,
      );
      return page(
        res,
        400,
        'Not this authorization',
        'This response does not belong to the authorization connector-auth is waiting for.',
      );
    }
    this.#hold(res);
    this.#settle(url.searchParams);
  }

  /** Keeps the browser's request for the outcome, within HOLD_LIMIT_MS. */
  #hold(res: ServerResponse): void {
    this.#done = true;
    this.#held = res;
    this.#holdTimer = setTimeout(
      () =>
        void this.finish({
          ok: true,
          message: 'connector-auth received the answer; see the terminal for the outcome.',
        }),
      HOLD_LIMIT_MS,
    );
    this.#holdTimer.unref();
  }

  #unavailable(error: unknown): ConfigurationError {
    const { uri, key } = this.#options;
    const port = this.#port;
    const code = (error as { code?: string }).code;
    return new ConfigurationError(
      `cannot receive the authorization response at ${uri.href}: ${code === 'EADDRINUSE' ? `port ${port} is in use` : `listening failed (${code ?? String(error)})`}`,
      {
        code: 'redirect_uri_unavailable',
        key,
        hint: `free port ${port}, or set '${key}' to a loopback address whose port is free (or without a port, if the authorization server accepts any loopback port)`,
      },
    );
  }
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** A small self-contained page: no scripts, nothing fetched, nothing cached. */
function page(res: ServerResponse, status: number, title: string, message: string, sent?: () => void): void {
  const body = `<!doctype html><meta charset="utf-8"><title>${escape(title)}</title><h1>${escape(title)}</h1><p>${escape(message)}</p>\n`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'",
    'referrer-policy': 'no-referrer',
    connection: 'close',
  });
  // A tab closed while the request was held: its response is gone already, nothing to wait for.
  if (res.destroyed) return sent?.();
  // 'close', not end()'s callback: it comes however the connection ends.
  if (sent) res.once('close', sent);
  res.end(body);
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
