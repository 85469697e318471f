export { authorizedRequests, type RestRequestInit } from './authorized-request.js';
export { awsRequestSigner, type RequestSigner } from './aws-request-signing.js';
export { leaveOriginSafely, RedirectPolicy, MAX_REDIRECTS, type Hop } from './redirect-policy.js';
export { resolveUrl, withTrailingSlash } from './resolve-url.js';
export { RestClient, type RestSource } from './rest-client.js';
export { awsRefusalMessage, notJsonError, statusError } from './rest-status.js';
