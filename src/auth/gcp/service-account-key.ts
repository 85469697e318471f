import { z } from 'zod';
import { keys } from '../../config/index.js';
import { ConfigurationError } from '../../errors/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import { defineAuthMethod } from '../auth-method.js';
import { loadSigningKey, newJwtId, signJwt } from '../oauth/index.js';
import { tokenCredential } from '../tokens/index.js';
import { checkTokenEndpointUrl, tokenEndpointFor } from '../token-endpoint/index.js';
import { HeaderList } from '../../network/index.js';

/**
 * A service account's JSON key (Google's format: `client_email`, `private_key`, `private_key_id`,
 * `token_uri`) exchanged for access tokens with the JWT bearer grant (RFC 7523 §2.1): a JWT signed
 * with the account's private key is the grant itself; no client secret exists.
 */

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const KEY = 'service_account_key';
/** Google's token endpoint: what a key without `token_uri` means. */
const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
/** iat is set this far back: a server whose clock is a little behind ours must not see a future iat. */
const CLOCK_SKEW_SECONDS = 30;
/** The assertion is used once, at once; servers allow at most an hour (Google, Salesforce: less). */
const ASSERTION_LIFETIME_SECONDS = 300;

export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id: string | undefined;
  token_uri: string;
}

export const serviceAccountKeys = z.object({
  service_account_key: keys.text(),
  scope: keys.optionalText(),
});

export default defineAuthMethod({
  name: 'service_account_key',
  summary: 'Service account key: a JSON key whose private key signs a JWT bearer grant (RFC 7523) for access tokens',
  keys: serviceAccountKeys,
  rotationDays: 30,
  async create(k, context) {
    const account = parseServiceAccountKey(k.service_account_key, context.secrets);
    const signingKey = loadSigningKey(account.private_key, KEY, context.secrets, "service account's private_key");
    let tokenUrl: URL;
    try {
      tokenUrl = new URL(account.token_uri);
    } catch {
      throw invalid('its "token_uri" is not an absolute URL');
    }
    checkTokenEndpointUrl(tokenUrl, KEY, "auth_method 'service_account_key' (the key's token_uri)");
    const description = `service account '${account.client_email}'`;

    const endpoint = await tokenEndpointFor(context, {
      url: tokenUrl,
      urlKey: KEY,
      credential: description,
      errorKeys: {
        invalid_client: KEY,
        invalid_grant: KEY,
        unauthorized_client: KEY,
        invalid_scope: 'scope',
        other: KEY,
      },
    });

    return tokenCredential({
      method: 'service_account_key',
      description,
      rejectedKey: KEY,
      endpoint,
      context,
      obtain: () =>
        endpoint.request(JWT_BEARER, async () => {
          const now = Math.floor(context.now() / 1000);
          const assertion = await signJwt(
            signingKey,
            {
              iss: account.client_email,
              sub: account.client_email,
              aud: tokenUrl.href,
              iat: now - CLOCK_SKEW_SECONDS,
              exp: now + ASSERTION_LIFETIME_SECONDS,
              jti: newJwtId(),
              // Google reads the scope from the assertion; RFC 7523 §2.1 servers from the request.
              ...(k.scope ? { scope: k.scope } : {}),
            },
            { kid: account.private_key_id },
            context.secrets,
            'service_account_assertion',
          );
          const body = new URLSearchParams({ assertion });
          if (k.scope) body.set('scope', k.scope);
          return { body, headers: new HeaderList() };
        }),
    });
  },
});

/**
 * The key as one configuration string: its JSON text, or that text in base64 (the form in which
 * CI secret stores and environment variables often carry it). Every message names the key and the
 * missing field, never a value.
 */
export function parseServiceAccountKey(text: string, secrets: SecretRegistry): ServiceAccountKey {
  const trimmed = text.trim();
  let json = trimmed;
  if (!trimmed.startsWith('{')) {
    const decoded = Buffer.from(trimmed, 'base64').toString('utf8').trim();
    if (!decoded.startsWith('{')) throw invalid("it is neither the JSON key file's content nor that content in base64");
    secrets.register(KEY, decoded);
    json = decoded;
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw invalid('it is not valid JSON (paste the whole key file, as one string)');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid('it is not a JSON object');
  const o = value as Record<string, unknown>;
  const field = (name: string, required: boolean): string | undefined => {
    const v = o[name];
    if (typeof v === 'string' && v.trim() !== '') return v;
    if (required) throw invalid(`its "${name}" field is missing or empty`);
    return undefined;
  };
  // Registered before any check can fail, in the forms it takes once decoded.
  const privateKey = field('private_key', false);
  if (privateKey) secrets.register(KEY, privateKey);
  const clientEmail = field('client_email', true)!;
  return {
    client_email: clientEmail,
    private_key: field('private_key', true)!,
    private_key_id: field('private_key_id', false),
    token_uri: field('token_uri', false) ?? DEFAULT_TOKEN_URI,
  };
}

function invalid(what: string): ConfigurationError {
  return new ConfigurationError(
    `invalid configuration for auth_method 'service_account_key': key '${KEY}' is not a usable service account key: ${what}`,
    {
      code: 'service_account_key_invalid',
      key: KEY,
      hint: `put the content of the service account's JSON key file in '${KEY}'`,
    },
  );
}
