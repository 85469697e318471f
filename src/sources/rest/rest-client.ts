import type { Credential } from '../../auth/index.js';
import {
  describeUrl,
  readBodyStart,
  REFUSAL_BODY_LIMIT,
  type HttpClient,
  type HttpReply,
  type prepareSshTunnel,
  type TlsSettings,
} from '../../network/index.js';
import type { ConnectedSource, ProbeResult } from '../source-definition.js';
import { authorizedRequests, triesOf, type RestRequestInit } from './authorized-request.js';
import type { RequestSigner } from './aws-request-signing.js';
import { resolveUrl } from './resolve-url.js';
import { notJsonError, statusError } from './rest-status.js';

export interface RestSource extends ConnectedSource {
  readonly baseUrl: URL;
  /** Like the global fetch, but authenticated and bounded. Statuses are returned, not thrown. */
  fetch(pathOrUrl: string | URL, init?: RestRequestInit): Promise<Response>;
  /**
   * Like fetch, for JSON APIs read a page at a time: the same credential, TLS and timeout, but a
   * lean reply whose body is read whole with text(), without WHATWG streams. The typed clients
   * (connector-auth/pipeline-api, /webhooks-api) use it.
   */
  request(pathOrUrl: string | URL, init?: RestRequestInit): Promise<HttpReply>;
  /**
   * GET (or `init.method`) and parse JSON; a non-2xx status, a body cut short or too slow, and a
   * body that is not JSON throw classified errors (exit 3 or 4) naming the URL.
   */
  json<T = unknown>(pathOrUrl: string | URL, init?: RestRequestInit): Promise<T>;
}

export interface RestClientParts {
  baseUrl: URL;
  credential: Credential;
  signer: RequestSigner | undefined;
  http: HttpClient;
  tls: TlsSettings;
  tunnel: Awaited<ReturnType<typeof prepareSshTunnel>>;
  timeoutSeconds: number;
  maxRetries: number;
  probe: { path: string; expectStatus: number[] };
  secrets: Parameters<typeof authorizedRequests>[0]['secrets'];
  log: Parameters<typeof authorizedRequests>[0]['log'];
}

/** Bodies of fetch()'s answers up to this size are drained between hops, keeping the connection. */
const DRAIN_LIMIT = 64 * 1024;

/**
 * What a connector's update() holds for a REST API: every call goes through `authorizedRequests`
 * (the credential on base_url's origin only, redirects followed by the policy, one retry of a 401).
 * Its calls are arrow functions, so a connector may pass `source.fetch` around on its own.
 */
export class RestClient implements RestSource {
  readonly baseUrl: URL;
  readonly #parts: RestClientParts;
  readonly #authorized: ReturnType<typeof authorizedRequests>;
  readonly #requestContext: { credential: string; urlKey: string; clientCertificate: TlsSettings['clientCertificate'] };

  constructor(parts: RestClientParts) {
    this.baseUrl = parts.baseUrl;
    this.#parts = parts;
    this.#authorized = authorizedRequests(parts);
    this.#requestContext = {
      credential: parts.credential.description,
      urlKey: 'base_url',
      clientCertificate: parts.tls.clientCertificate,
    };
  }

  fetch = (pathOrUrl: string | URL, init: RestRequestInit = {}): Promise<Response> =>
    this.#authorized(
      pathOrUrl,
      init,
      (url, i) => this.#parts.http.send(url, i, this.#requestContext),
      (r) => readBodyStart(r, DRAIN_LIMIT),
    );

  request = (pathOrUrl: string | URL, init: RestRequestInit = {}): Promise<HttpReply> =>
    this.#authorized(
      pathOrUrl,
      init,
      (url, i) => this.#parts.http.request(url, i, this.#requestContext),
      (r) => r.discard(),
    );

  json = async <T>(pathOrUrl: string | URL, init?: RestRequestInit): Promise<T> => {
    const { credential, signer } = this.#parts;
    // The lean path: no WHATWG Response for a body that is parsed at once.
    const reply = await this.request(pathOrUrl, init);
    const target = `${credential.description}: ${init?.method ?? 'GET'} ${describeUrl(resolveUrl(this.baseUrl, pathOrUrl))}`;
    if (reply.status < 200 || reply.status > 299) {
      const body =
        signer !== undefined && reply.status === 403
          ? await reply.textStart(REFUSAL_BODY_LIMIT)
          : (await reply.discard(), '');
      throw statusError(reply, target, credential, [200], {
        body,
        quoteService: signer !== undefined,
        data: true,
        tries: triesOf(reply),
      });
    }
    // A reset or a pause past timeout_seconds while the body arrives is classified by the HTTP
    // client (exit 4, naming the URL), as it is before the headers.
    const text = await reply.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw notJsonError(reply, target);
    }
  };

  probe = async (): Promise<ProbeResult> => {
    const { credential, signer, http, tls, tunnel, probe } = this.#parts;
    // The HTTP client's agents are made before the clock starts: the time reported is the probe's.
    http.prepare();
    const started = performance.now();
    await credential.prepare?.();
    const url = resolveUrl(this.baseUrl, probe.path);
    const target = `GET ${describeUrl(url)}${tunnel ? ` via ${tunnel.bastion}` : ''}`;
    const reply = await this.request(url);
    if (probe.expectStatus.includes(reply.status)) {
      // A small body is read to its end (a large one dropped): the connection stays for update().
      await reply.discard();
      return { target, outcome: `HTTP ${reply.status}`, elapsedMs: performance.now() - started };
    }
    // nginx answers a missing or refused client certificate with a 400 page, AWS a refused
    // signature or permission with a 403 that says which: read its start.
    const readsBody = reply.status === 400 || (signer !== undefined && reply.status === 403);
    const body = readsBody ? await reply.textStart(REFUSAL_BODY_LIMIT) : (await reply.discard(), '');
    throw statusError(reply, `${credential.description}: ${target}`, credential, probe.expectStatus, {
      body,
      tls,
      quoteService: signer !== undefined,
      tries: triesOf(reply),
    });
  };

  close = async (): Promise<void> => {
    await this.#parts.credential.close?.();
    await this.#parts.http.close();
    await this.#parts.tunnel?.close();
  };
}
