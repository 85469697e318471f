import { SourceIdentityError } from '../../errors/index.js';
import { describeUrl } from '../../network/index.js';
import type { AnswerHead, GssInitiator, OutgoingRequest } from '../capabilities.js';

/**
 * SPNEGO's mutual authentication for HTTP (RFC 4559 §5): a server that accepted our ticket sends
 * back `WWW-Authenticate: Negotiate <token>`. The token holds the Kerberos AP-REP, which only a
 * holder of the service's key can make for this one authenticator. Our GSS context checks it, and
 * so it completes. Without that check, any server on base_url's address could answer 200 to a
 * Negotiate header it cannot read. It could serve made-up data, or collect authenticators to
 * replay to the real service. Python's requests-kerberos checks the token the same way by
 * default, and raises MutualAuthenticationError.
 *
 * What is checked: every answer below 400. Its token must complete the context; without one, or
 * with one that does not verify, the answer is refused and its body never reaches the caller. An
 * error answer (a 401 refusing the ticket, a 500) is not checked: it claims nothing, and the source
 * reports it as the status it is. Its token may be a Kerberos error (a clock skew, a replay
 * refused), which is the status's to tell, not an impostor's sign.
 *
 * `kerberos_skip_mutual_authentication: "true"` turns the check off for a proxy in front of the
 * service that drops the header. That choice is logged as a warning on every run.
 */

/** The base64 token of a `Negotiate` challenge, among the header's challenges. */
export function negotiateToken(header: string | null): string | undefined {
  if (!header) return undefined;
  return /(?:^|,)\s*Negotiate\s+([A-Za-z0-9+/]+={0,2})\s*(?:,|$)/i.exec(header)?.[1];
}

/**
 * Checks that the server that answered `request` proved it is `HTTP/host`. It takes the GSS context
 * that made the request's token and steps that context with the server's token.
 */
export async function confirmServer(
  request: OutgoingRequest,
  answer: AnswerHead,
  initiator: GssInitiator,
  description: string,
): Promise<void> {
  if (answer.status >= 400) return;
  const token = negotiateToken(answer.headers.get('www-authenticate'));
  const target = `${description}: ${request.method} ${describeUrl(request.url)}`;
  const service = `HTTP/${request.url.hostname}`;
  if (token === undefined)
    throw notProven(
      `${target} failed: the server answered HTTP ${answer.status} without the Negotiate token that proves it is '${service}' (SPNEGO mutual authentication)`,
    );
  try {
    await initiator.step(token);
  } catch (cause) {
    throw notProven(
      `${target} failed: the server's Negotiate token does not prove it is '${service}' (SPNEGO mutual authentication)`,
      cause,
    );
  }
  if (!initiator.complete)
    throw notProven(
      `${target} failed: the server's Negotiate token left the exchange unfinished, so it did not prove it is '${service}' (SPNEGO mutual authentication)`,
    );
}

function notProven(message: string, cause?: unknown): SourceIdentityError {
  return new SourceIdentityError(message, {
    code: 'kerberos_mutual_authentication_failed',
    key: 'base_url',
    hint: 'check that base_url reaches the service itself. If a proxy in front of it drops the server\'s WWW-Authenticate header, set kerberos_skip_mutual_authentication to "true" (logged on every run)',
    ...(cause === undefined ? {} : { cause }),
  });
}
