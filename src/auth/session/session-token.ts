import { z } from 'zod';
import { keys } from '../../config/index.js';
import type { HttpClient } from '../../network/index.js';
import { defineAuthMethod, type AuthContext, type Credential } from '../auth-method.js';
import type { OutgoingRequest } from '../capabilities.js';
import { checkTokenEndpointUrl, createTokenHttpClient } from '../token-endpoint/index.js';
import { TokenCache } from '../tokens/index.js';
import { login, parseTokenLocation, type LoginRequest } from './session-login.js';

/**
 * A session from a login request (Metabase, many in-house APIs): the username and password go to
 * `login_url`, the answer carries a token, and the token goes on every request in a header with the
 * prefix the API wants (`Authorization: Token <t>`, `X-Metabase-Session: <t>`). One login per
 * lifetime whatever the concurrency, a new one before expiry and once after a 401 (TokenCache).
 */
const sessionKeys = z.object({
  login_url: keys.url(),
  login_method: keys.oneOf(['POST', 'PUT'], 'POST'),
  login_body_format: keys.oneOf(['json', 'form'], 'json'),
  username: keys.text(),
  password: keys.text(),
  login_username_field: keys.textWithDefault('username'),
  login_password_field: keys.textWithDefault('password'),
  session_token_location: keys.textWithDefault('body:token').refine((v) => parseTokenLocation(v) !== undefined, {
    message: 'must be body:<json path>, header:<name> or cookie:<name>',
  }),
  session_expires_in_field: keys.textWithDefault('expires_in'),
  session_lifetime_seconds: keys.integer({ min: 1, max: 31_536_000, default: 3600 }),
  session_header: keys.textWithDefault('Authorization'),
  // Empty: the token alone (X-Metabase-Session: <t>).
  session_header_prefix: z
    .string()
    .optional()
    .transform((v) => v ?? 'Bearer'),
});

type SessionKeys = z.output<typeof sessionKeys>;

export default defineAuthMethod({
  name: 'session_token',
  summary: 'Session token: log in with username and password, send the token the login answers with',
  keys: sessionKeys,
  async create(k, context) {
    const scope = "auth_method 'session_token'";
    checkTokenEndpointUrl(k.login_url, 'login_url', scope, 'send the password', 'the login endpoint');
    const http = await createTokenHttpClient(context.tls, context.common.timeout_seconds);
    return sessionCredential(k, context, http);
  },
});

function sessionCredential(k: SessionKeys, context: AuthContext, http: HttpClient): Credential {
  const description = `session token as '${k.username}'`;
  const request = loginRequest(k);
  const answer = { credential: description, rejectedKey: 'password', urlKey: 'login_url' };
  const cache = new TokenCache({
    description,
    log: context.log,
    now: context.now,
    noun: 'session token',
    fetch: async () => {
      const issued = await login(http, request, { ...answer, locationKey: 'session_token_location' });
      // Registered the moment it is known: no later line, error or row can carry it.
      context.secrets.register('session token', issued.value);
      context.log.debug(`${description}: logged in, session valid for ${Math.round(issued.lifetimeMs / 1000)}s`);
      return issued;
    },
  });
  const sentWith = new WeakMap<OutgoingRequest, string>();
  return {
    method: 'session_token',
    description,
    rejectedKey: 'password',
    sendsSecret: true,
    httpRequest: {
      async authorize(outgoing) {
        const token = await cache.token();
        sentWith.set(outgoing, token);
        outgoing.headers.set(k.session_header, headerValue(k, request, token));
      },
    },
    async prepare() {
      await cache.token();
    },
    invalidate: (refused) => cache.invalidate(refused ? sentWith.get(refused) : undefined),
    async close() {
      await cache.close();
      await http.close();
    },
  };
}

function loginRequest(k: SessionKeys): LoginRequest {
  return {
    url: k.login_url,
    method: k.login_method,
    format: k.login_body_format,
    fields: { [k.login_username_field]: k.username, [k.login_password_field]: k.password },
    location: parseTokenLocation(k.session_token_location)!,
    expiresInField: k.session_expires_in_field,
    lifetimeSeconds: k.session_lifetime_seconds,
  };
}

/** `<prefix> <token>`; a session kept in a cookie goes back as `Cookie: <name>=<token>`. */
function headerValue(k: SessionKeys, request: LoginRequest, token: string): string {
  if (k.session_header.toLowerCase() === 'cookie' && request.location.in === 'cookie')
    return `${request.location.name}=${token}`;
  const prefix = k.session_header_prefix.trim();
  return prefix ? `${prefix} ${token}` : token;
}
