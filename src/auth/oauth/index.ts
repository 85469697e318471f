// The OAuth family's door: client authentication and JWT signing, which gcp/ and the browser grants reuse.
export type { ClientAuthentication } from './client-authentication.js';
export type { OAuthClient } from './oauth-client.js';
export { loadSigningKey, newJwtId, secretSigningKey, signJwt } from './signing-key.js';
export type { SigningKey } from './signing-key.js';
