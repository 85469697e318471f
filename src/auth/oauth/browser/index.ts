// The browser grants' door: how a person grants a refresh token, in a browser or with a device code.
export {
  DEFAULT_REDIRECT_URI,
  authorizationCodeGrant,
  checkRedirectUri,
  parseAuthorizationParameters,
} from './authorization-code.js';
export { deviceAuthorizationGrant } from './device-authorization.js';
export { obtainRefreshToken } from './refresh-token-authorization.js';
export type { RefreshTokenAuthorizationKeys, RefreshTokenClient } from './refresh-token-authorization.js';
