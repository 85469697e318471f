import { AuthenticationError } from '../../errors/index.js';
import { redactedLine, type SecretRegistry } from '../../secrets/index.js';
import { messagePrefix, type EndpointTarget, type OAuthErrorKeys } from './token-endpoint-options.js';

/**
 * A token endpoint's final refusal (exit 3): the OAuth error (RFC 6749 §5.2) or the status, the
 * server's description (one line, redacted), and the configuration key to fix.
 */

/** What a refusal names: the error's own key, else the status's, else `other`. */
export interface RefusalOf {
  /** The OAuth error code, when the answer carried one. */
  error?: string | undefined;
  description?: unknown;
  status: number;
  /** The key a status names when no OAuth error does (refusalStatuses, a bare 401). */
  statusKey?: string | undefined;
  statusHint?: string | undefined;
}

/** What an OAuth refusal means, before the key it names. */
export const REFUSAL_HINTS: Record<string, string> = {
  invalid_client: 'the authorization server did not accept the client authentication; check',
  invalid_grant: 'the grant is invalid, expired or revoked; check',
  unauthorized_client: 'this client may not use this grant type; check',
};

export function tokenRefusal(
  o: EndpointTarget & { errorKeys: OAuthErrorKeys; secrets: SecretRegistry },
  { error, description, status, statusKey, statusHint }: RefusalOf,
): AuthenticationError {
  const keys = o.errorKeys;
  // Own properties only: a server's `"error": "constructor"` is not a key of ours.
  const key =
    (error !== undefined && error !== 'other' && Object.hasOwn(keys, error) ? keys[error] : undefined) ??
    statusKey ??
    keys.other;
  const detail = serverDetail(description, o.secrets);
  const what = error ? `${error}${detail}` : `HTTP ${status}${statusKey ? detail : ''}`;
  return new AuthenticationError(`${messagePrefix(o)} refused the token request: ${what}`, {
    code: error ? `oauth_${error}` : `http_${status}`,
    key,
    hint:
      statusHint ??
      (error !== undefined && Object.hasOwn(REFUSAL_HINTS, error)
        ? `${REFUSAL_HINTS[error]} '${key}'`
        : `check '${key}'`),
  });
}

/** An OAuth error code is a short token (RFC 6749 §5.2); anything else is not echoed into a message. */
export function oauthErrorName(error: string): string {
  return /^[A-Za-z0-9_.-]{1,64}$/.test(error) ? error : 'unrecognised_error';
}

/**
 * A server's error description for a message: ` (text)`, one line, bounded, redacted in case it
 * echoes a value — redacted before it is folded and cut (redactedLine) — ; '' when there is none.
 */
export function serverDetail(description: unknown, secrets: SecretRegistry): string {
  const line =
    typeof description === 'string' && description.trim() !== '' ? redactedLine(description, 200, secrets) : undefined;
  return line ? ` (${line})` : '';
}
