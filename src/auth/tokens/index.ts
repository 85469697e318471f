// The tokens family's door: holding tokens once issued (cache, lifetime, credential, files).
export { recoveryFileExists, recoveryFilePath, writeRecoveryFile } from './recovery-file.js';
export { TokenCache, hardMargin, refreshMargin } from './token-cache.js';
export type { IssuedToken, TokenCacheOptions } from './token-cache.js';
export { tokenCredential } from './token-credential.js';
export { tokenFileReader } from './token-file.js';
export { DEFAULT_TOKEN_LIFETIME_SECONDS, tokenLifetime } from './token-lifetime.js';
export { isUnsavedRefreshToken, saveRotatedRefreshToken, warnOfUnsavedRefreshToken } from './rotated-refresh-token.js';
