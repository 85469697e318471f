import type { AnswerHead, Credential, OutgoingRequest } from '../../auth/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import {
  describeUrl,
  explainTlsFailure,
  type HttpRequestInit,
  type prepareSshTunnel,
  type TlsSettings,
  withTransientRetries,
} from '../../network/index.js';
import type { RequestSigner } from './aws-request-signing.js';
import { RedirectPolicy, type Hop } from './redirect-policy.js';
import { resolveUrl } from './resolve-url.js';

/** What a request through the REST source may set: fetch's options, headers in any form fetch takes. */
export interface RestRequestInit extends Omit<HttpRequestInit, 'headers'> {
  headers?: HeadersInit;
  /**
   * Ask again after a transient failure (408, 429, 5xx from a gateway or server, a reset
   * connection) even though the method is not idempotent: the connector knows this POST is safe to
   * repeat (a search, a read-only query). Idempotent methods are retried without it.
   */
  retry?: boolean;
  /** How many times to ask again for this request, in place of `max_retries` (0: once only). */
  retries?: number;
}

export interface AuthorizedRequestScope {
  baseUrl: URL;
  credential: Credential;
  /** With an AWS method, the SigV4 signer that stands in for the credential's own authorize(). */
  signer: RequestSigner | undefined;
  tls: TlsSettings;
  tunnel: Awaited<ReturnType<typeof prepareSshTunnel>>;
  timeoutSeconds: number;
  /** How many times a transient failure is asked again (`max_retries`). */
  maxRetries: number;
  secrets: SecretRegistry;
  log: { debug(message: string): void; warning(message: string): void };
}

/** How many tries an answer took, for the one line that reports a failure in the end. */
const triesTaken = new WeakMap<object, number>();
export const triesOf = (reply: object): number => triesTaken.get(reply) ?? 1;

/**
 * One authenticated request, redirects followed under the redirect policy (redirect-policy.ts): the
 * credential goes to base_url's origin only. A 401 gets one retry, with what the answer asked for (a
 * DPoP nonce) or else with a fresh credential where the method can refresh; a TLS failure is
 * explained (explainTlsFailure) whichever call made it. `transmit` is the HTTP client's
 * fetch-shaped send() or its lean request(); `drain` reads an answer's body to its end, so the
 * connection is reused by the next hop. Either answer (fetch's Response, the lean reply) is read
 * here only by its status and headers (`AnswerHead`). The whole exchange is asked again after a
 * transient failure (network/http/transient-retries.ts), up to `maxRetries` times.
 */
export function authorizedRequests(scope: AuthorizedRequestScope) {
  const policy = new RedirectPolicy({
    baseUrl: scope.baseUrl,
    credential: scope.credential.description,
    secrets: scope.secrets,
    log: scope.log,
  });
  return async function authorized<R extends AnswerHead>(
    pathOrUrl: string | URL,
    init: RestRequestInit,
    transmit: (url: URL, init: HttpRequestInit) => Promise<R>,
    drain: (reply: R) => Promise<unknown>,
  ): Promise<R> {
    return new AuthorizedExchange(scope, policy, pathOrUrl, init, transmit, drain).run();
  };
}

/**
 * One call of `authorized`: its life is the request, its redirects, a 401's one retry and the
 * transient retries around all of them; it holds the request last sent, whose credential a 401
 * refused.
 */
class AuthorizedExchange<R extends AnswerHead> {
  private sent: { method: string; url: URL; headers: Headers } | undefined;

  constructor(
    private readonly scope: AuthorizedRequestScope,
    private readonly policy: RedirectPolicy,
    private readonly pathOrUrl: string | URL,
    private readonly init: RestRequestInit,
    private readonly transmit: (url: URL, init: HttpRequestInit) => Promise<R>,
    private readonly drain: (reply: R) => Promise<unknown>,
  ) {}

  async run(): Promise<R> {
    const { init, drain, scope } = this;
    const method = init.method ?? 'GET';
    const retries = init.retries ?? scope.maxRetries;
    const { reply, tries } = await withTransientRetries(() => this.exchange(), {
      method,
      retryUnsafe: init.retry === true,
      maxRetries: retries,
      drain,
      ...(init.signal ? { signal: init.signal } : {}),
      onRetry: (reason, waitMs, next) =>
        scope.log.warning(
          `${scope.credential.description}: ${method} ${describeUrl(resolveUrl(scope.baseUrl, this.pathOrUrl))} got ${reason}; try ${next} of ${retries + 1} in ${(waitMs / 1000).toFixed(1)} s`,
        ),
    });
    if (tries > 1) triesTaken.set(reply, tries);
    return reply;
  }

  private async exchange(): Promise<R> {
    const { credential } = this.scope;
    const answer = await this.follow();
    // One retry of a 401 from base_url's origin: with what the answer asked for (a DPoP nonce),
    // else with a fresh credential where the method can refresh.
    const retry =
      answer.reply.status === 401 &&
      this.policy.carriesCredential(answer.url) &&
      (credential.httpRequest?.answersChallenge?.(answer.url, answer.reply.headers) ||
        (credential.invalidate !== undefined && (await credential.invalidate(this.sent))));
    if (!retry) return answer.reply;
    // Read the (small) 401 body to its end so the retry reuses the connection.
    await this.drain(answer.reply);
    return (await this.follow()).reply;
  }

  /** The request and the redirects it leads to, as fetch follows them. */
  private async follow(): Promise<{ reply: R; url: URL }> {
    const { policy, init } = this;
    const first = resolveUrl(this.scope.baseUrl, this.pathOrUrl);
    let hop = policy.start(first, init.method ?? 'GET', init.body);
    for (let hops = 0; ; hops++) {
      const reply = await this.send(hop);
      const next = policy.target(reply, hop, init.redirect === 'manual');
      if (!next) return { reply, url: hop.url };
      policy.checkLength(hops, hop);
      await this.drain(reply);
      hop = policy.follow(hop, reply.status, next, first);
    }
  }

  private async send(hop: Hop<RestRequestInit['body']>): Promise<R> {
    const { credential, signer } = this.scope;
    const headers = this.policy.headers(this.init.headers, hop);
    const request = { method: hop.method, url: new URL(hop.url), headers, body: hop.body };
    this.sent = request;
    const carries = this.policy.carriesCredential(hop.url);
    if (carries) await (signer ? signer.sign(request, hop.body) : credential.httpRequest?.authorize(request));
    let reply: R;
    try {
      reply = await this.transmit(request.url, {
        ...this.init,
        method: hop.method,
        body: hop.body ?? null,
        headers,
        redirect: 'manual',
      });
    } catch (error) {
      throw await this.explained(error, request.method, request.url);
    }
    if (carries) credential.httpRequest?.observeAnswer?.(request.url, reply.headers);
    if (carries && credential.httpRequest?.confirmAnswer) await this.confirmed(request, reply);
    return reply;
  }

  /**
   * A connection the tunnel broke is explained by the tunnel (the bastion refused the channel).
   * Otherwise name the untrusted server's certificate, or find the client-certificate alert behind
   * a closed connection: in update() as in the probe, since certificates change mid-run too.
   */
  private async explained(error: unknown, method: string, url: URL): Promise<unknown> {
    const { credential, tunnel, tls, timeoutSeconds } = this.scope;
    const target = `${credential.description}: ${method} ${describeUrl(url)}`;
    return (
      tunnel?.takeFailure() ??
      (await explainTlsFailure(error, { url, tls, target, timeoutMs: timeoutSeconds * 1000, route: tunnel }))
    );
  }

  /** An answer the credential refuses (a server that did not prove itself) never reaches the caller. */
  private async confirmed(request: OutgoingRequest, reply: R): Promise<void> {
    try {
      await this.scope.credential.httpRequest?.confirmAnswer?.(request, reply);
    } catch (error) {
      await this.drain(reply).catch(() => undefined);
      throw error;
    }
  }
}
