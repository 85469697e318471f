import { SourceUnreachableError } from '../../errors/index.js';
import { explainTlsFailure, type HttpAnswer } from '../../network/index.js';
import {
  messagePrefix,
  type EndpointTarget,
  type RequestOptions,
  type TokenRequest,
} from './token-endpoint-options.js';

/**
 * One request to a token endpoint, built and sent: its body in the form the endpoint takes (an OAuth
 * grant's form, a JSON body, a metadata service's query), the client's authentication (inside
 * `build`, which the grant gives), a DPoP proof, and the TLS client certificate when one proves the
 * client. A network failure that may pass comes back as `failed`, for the retry policy to judge;
 * one that will not (a refused certificate, a host name that does not exist) is thrown, final.
 */

/** One request as sent: method, headers and body. */
export interface SendInit {
  method: 'POST' | 'GET';
  headers: Headers;
  body?: string;
}

/** What sending came to: the server's answer, or a network failure that may pass. */
export type Sent =
  { kind: 'answered'; response: HttpAnswer; text: string } | { kind: 'failed'; error: SourceUnreachableError };

/** The grant `grantType` as a form, built anew by `build` for every send (a client assertion carries a jti the server accepts once). */
export function grantForm(
  grantType: string,
  build: () => Promise<TokenRequest> | TokenRequest,
): () => Promise<SendInit> {
  return async () => {
    const { body, headers } = await build();
    body.set('grant_type', grantType);
    return formInit(body, headers);
  };
}

/** A form that is not a grant (RFC 8628's device authorization request). */
export function formInit(body: URLSearchParams, headers: Headers): SendInit {
  headers.set('content-type', 'application/x-www-form-urlencoded');
  headers.set('accept', 'application/json');
  return { method: 'POST', headers, body: body.toString() };
}

/** A JSON body (an API that issues tokens, not an OAuth grant). */
export function jsonInit(body: unknown, headers: Headers): SendInit {
  headers.set('content-type', 'application/json');
  headers.set('accept', 'application/json');
  return { method: 'POST', headers, body: JSON.stringify(body) };
}

/** A GET of `url` with `query` added (a metadata service). */
export function getInit(url: URL, query: URLSearchParams, headers: Headers): { url: URL; init: SendInit } {
  const withQuery = new URL(url);
  for (const [name, value] of query) withQuery.searchParams.set(name, value);
  if (!headers.has('accept')) headers.set('accept', 'application/json');
  return { url: withQuery, init: { method: 'GET', headers } };
}

/** Builds the request (what that throws is its own failure, not the endpoint's), proves it with DPoP, sends it. */
export async function sendTokenRequest(
  o: EndpointTarget & RequestOptions,
  url: URL,
  requestFor: () => SendInit | Promise<SendInit>,
  remainingMs: number,
): Promise<Sent> {
  const init = await requestFor();
  if (o.dpop) init.headers.set('dpop', await o.dpop.proof(init.method, url));
  try {
    // The lean request: a token answer is small and read whole, no WHATWG Response is needed.
    const response = await o.http.request(
      url,
      // Never redirected: a POST that carries a client secret must go where token_url says, nowhere
      // else, and a metadata service that redirects is not one.
      { ...init, signal: AbortSignal.timeout(remainingMs) },
      { credential: o.credential, urlKey: o.urlKey, clientCertificate: o.clientTls?.clientCertificate },
    );
    const text = await response.text().catch(() => '');
    return { kind: 'answered', response, text };
  } catch (error) {
    // With TLS 1.3 a server judges the client certificate after the handshake seems done: its
    // refusal arrives as a closed connection, which a look-only handshake tells apart (final, exit 3).
    const tls = o.clientTls;
    const explained = tls
      ? await explainTlsFailure(error, { url, tls, target: messagePrefix(o), timeoutMs: remainingMs })
      : error;
    if (explained !== error) throw explained;
    // Timeouts, refused and reset connections may pass; an untrusted certificate will not, nor a
    // host name that does not exist (a temporary DNS failure, EAI_AGAIN, may pass and is retried).
    if (error instanceof SourceUnreachableError && error.code === 'enotfound') throw unresolvable(o, url, error);
    if (error instanceof SourceUnreachableError) return { kind: 'failed', error };
    throw error;
  }
}

/** The host name of the endpoint does not exist: final at once (exit 4), naming the key that holds it. */
function unresolvable(o: EndpointTarget, url: URL, cause: SourceUnreachableError): SourceUnreachableError {
  return new SourceUnreachableError(`${messagePrefix(o)} failed: host name '${url.hostname}' not found (DNS)`, {
    code: 'enotfound',
    key: o.urlKey,
    hint: `check the host name in '${o.urlKey}'`,
    cause,
  });
}
