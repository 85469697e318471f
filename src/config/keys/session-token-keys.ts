import { plain, type KeySpec } from './key-spec.js';

/** The keys of auth_method `session_token` (besides `username` and `password`): its login request and where its token goes. */
export const SESSION_TOKEN_KEYS: Readonly<Record<string, KeySpec>> = {
  login_url: plain('session_token', 'URL of the login request (HTTPS, or http on loopback)', 'line'),
  login_method: plain('session_token', 'method of the login request: `POST` (default) or `PUT`'),
  login_body_format: plain('session_token', 'body of the login request: `json` (default) or `form`'),
  login_username_field: plain('session_token', 'body field that carries `username` (default `username`)'),
  login_password_field: plain('session_token', 'body field that carries `password` (default `password`)'),
  session_token_location: plain(
    'session_token',
    'where the login answer carries the token: `body:<json path>` (default `body:token`), `header:<name>` or `cookie:<name>`',
  ),
  session_expires_in_field: plain(
    'session_token',
    "JSON path of the token's lifetime in seconds in the login answer (default `expires_in`)",
  ),
  session_lifetime_seconds: plain('session_token', 'lifetime of a session when the answer does not say (default 3600)'),
  session_header: plain('session_token', 'header that carries the token (default `Authorization`)'),
  session_header_prefix: plain(
    'session_token',
    'text before the token in that header (default `Bearer`; e.g. `Token`; empty: the token alone)',
  ),
};
