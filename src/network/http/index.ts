// HTTP: the client every HTTP source and token endpoint uses (Node's own http client), its lean
// reply, its deadline, a signed URL's expiry, reading Retry-After, and retrying what passes.
export { HttpClient } from './http-client.js';
export type { HttpRequestInit } from './http-client.js';
export { HeaderList } from './header-list.js';
export { headersDeadline } from './headers-deadline.js';
export type { HeadersDeadline } from './headers-deadline.js';
export type { HeaderReader, HttpAnswer, HttpReply } from './http-reply.js';
export { retryAfterMs } from './retry-after.js';
export { withTransientRetries } from './transient-retries.js';
export { readSignedUrlExpiry, signedUrlSecretParts, describeSignedUrlFormat } from './signed-url.js';
export type { SignedUrlExpiry, SignedUrlFormat } from './signed-url.js';
