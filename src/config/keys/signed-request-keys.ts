/**
 * The keys of the methods that sign with a key from the configuration, no identity service between
 * (jwt_bearer, oauth1): a table of their own, spread into the key catalogue, which stays one screen.
 */

interface SignedRequestKey {
  secret: boolean;
  scope: 'jwt_bearer' | 'oauth1';
  description: string;
}

const jwt = (secret: boolean, description: string): SignedRequestKey => ({ secret, scope: 'jwt_bearer', description });
const oauth1 = (secret: boolean, description: string): SignedRequestKey => ({ secret, scope: 'oauth1', description });

export const SIGNED_REQUEST_KEYS: Readonly<Record<string, SignedRequestKey>> = {
  jwt_private_key: jwt(true, 'private key (PEM or JWK) that signs the JWT: RSA for RS256, EC P-256 for ES256'),
  jwt_secret: jwt(true, 'shared secret that signs the JWT with HS256, in place of jwt_private_key'),
  jwt_issuer: jwt(false, 'the `iss` claim (a GitHub App: its app id; App Store Connect: the issuer id)'),
  jwt_subject: jwt(false, 'the `sub` claim, when the API asks for one'),
  jwt_audience: jwt(false, 'the `aud` claim, when the API asks for one (App Store Connect: `appstoreconnect-v1`)'),
  jwt_key_id: jwt(false, "the `kid` header (App Store Connect: the key id); default: a JWK key's own `kid`"),
  jwt_lifetime_seconds: jwt(
    false,
    'how long each JWT is valid, 30 to 86400 seconds (default 600, the most GitHub accepts); signed again before it expires',
  ),
  jwt_claims: jwt(false, 'further claims, as a JSON object (`{"bid": "com.example.app"}`)'),
  oauth1_consumer_key: oauth1(true, "OAuth 1.0a consumer key (NetSuite: the integration record's)"),
  oauth1_consumer_secret: oauth1(true, 'OAuth 1.0a consumer secret'),
  oauth1_token: oauth1(true, 'OAuth 1.0a access token (NetSuite: the token id)'),
  oauth1_token_secret: oauth1(true, 'OAuth 1.0a access token secret'),
  oauth1_realm: oauth1(false, 'the `realm` of the Authorization header (NetSuite: the account id, `1234567_SB1`)'),
  oauth1_signature_method: oauth1(false, "`HMAC-SHA256` (default, NetSuite's) or `HMAC-SHA1`"),
};
