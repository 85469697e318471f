export { HttpClient } from './http-client.js';
export type { HttpRequestInit } from './http-client.js';
export { classifyNetworkError } from './classify-network-error.js';
export type { RequestContext } from './classify-network-error.js';
export { readTlsSettings, unescapeNewlines } from './tls-settings.js';
export type { TlsSettings } from './tls-settings.js';
export { describeUrl, isLoopbackHost } from './target.js';
