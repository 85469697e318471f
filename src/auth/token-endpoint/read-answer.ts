import { SourceUnreachableError } from '../../errors/index.js';
import { describeUrl, type HttpAnswer } from '../../network/index.js';
import { retryAfterMs } from '../../network/index.js';
import { RETRY_OAUTH_ERRORS, RETRY_STATUSES, type Attempt } from './retry-policy.js';
import { parseObject } from './token-answer.js';
import { messagePrefix, type AnswerOptions, type EndpointTarget, type ReadAnswer } from './token-endpoint-options.js';
import { REFUSAL_HINTS, oauthErrorName, tokenRefusal } from './token-refusal.js';

/**
 * What a token endpoint's answer means: a 2xx is read by `read` (a token, or what the caller wants
 * of it); a status or OAuth error the retry policy retries is a `retry`; everything else is thrown,
 * final — a redirect (token requests are not followed), a refusal naming the key to fix, or an
 * answer that says the URL is not a token endpoint.
 */
export function readAnswer<T>(
  o: EndpointTarget & AnswerOptions,
  response: HttpAnswer,
  text: string,
  read: ReadAnswer<T>,
): Attempt<T> {
  const status = response.status;
  const refused = o.checkAnswer?.(response);
  if (refused) throw refused;
  const json = parseObject(text);
  if (status >= 200 && status < 300) return { kind: 'token', token: read(json, response, text) };

  const oauthError = typeof json?.error === 'string' ? oauthErrorName(json.error) : undefined;
  if ((o.retryStatuses ?? RETRY_STATUSES).has(status) || (oauthError && RETRY_OAUTH_ERRORS.has(oauthError))) {
    const what = `answered HTTP ${status}${oauthError ? ` ${oauthError}` : ''}`;
    const error = new SourceUnreachableError(`${messagePrefix(o)} ${what}`, {
      code: `http_${status}`,
      key: o.urlKey,
      hint: `the token endpoint is overloaded or down; try again later, or check '${o.urlKey}'`,
    });
    return { kind: 'retry', error, what, retryAfterMs: retryAfterMs(response.headers.get('retry-after'), o.now()) };
  }
  if (status >= 300 && status < 400) throw redirected(o, response);
  if (oauthError && status >= 400 && status < 500)
    throw tokenRefusal(o, { error: oauthError, description: json!.error_description, status });
  const refusal = o.refusalStatuses?.[status];
  if (refusal !== undefined) {
    // Google's APIs answer `{"error": {"code", "message", "status"}}`: the message is what to show.
    const apiMessage =
      json?.error !== null && typeof json?.error === 'object'
        ? (json.error as { message?: unknown }).message
        : undefined;
    const description =
      typeof apiMessage === 'string' ? apiMessage : text.trimStart().startsWith('<') ? undefined : text;
    throw tokenRefusal(o, {
      description,
      status,
      statusKey: typeof refusal === 'string' ? refusal : refusal.key,
      statusHint: typeof refusal === 'string' ? undefined : refusal.hint,
    });
  }
  // RFC 6749 §5.2: a 401 is the client's authentication refused (invalid_client), with or without a body saying so.
  if (status === 401) {
    const key = o.errorKeys.invalid_client;
    throw tokenRefusal(o, { status, statusKey: key, statusHint: `${REFUSAL_HINTS.invalid_client} '${key}'` });
  }
  if (status === 403) throw tokenRefusal(o, { status });
  throw new SourceUnreachableError(`${messagePrefix(o)} answered HTTP ${status}; expected a token`, {
    code: `http_${status}`,
    key: o.urlKey,
    hint: `check that '${o.urlKey}' is the token endpoint of the authorization server`,
  });
}

function redirected(o: EndpointTarget, response: HttpAnswer): SourceUnreachableError {
  const status = response.status;
  const location = URL.parse(response.headers.get('location') ?? '', o.url);
  return new SourceUnreachableError(
    `${messagePrefix(o)} answered a redirect (HTTP ${status}${location ? ` to ${describeUrl(location)}` : ''}); token requests are not redirected`,
    { code: `http_${status}`, key: o.urlKey, hint: `set '${o.urlKey}' to the token endpoint's final address` },
  );
}
