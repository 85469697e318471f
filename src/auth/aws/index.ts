// The AWS family's door: the credential the sources sign with, and SigV4 for requests signed without an SDK client.
export { awsSessionCredential, cachedAwsSession } from './aws-credential.js';
export type { AwsCredential, AwsSession } from './aws-credential.js';
export { quietAwsSdkNodeVersionWarning } from './aws-sdk-warning.js';
export { sigv4Signer } from './aws-sigv4.js';
export { clockTooFarOff, secretNotTheKeys } from './signature-refusals.js';
export { sdkNetworkFailure } from './sdk-network-failure.js';
export { awsAnswerSaid, awsServiceUnavailable } from './aws-answer.js';
export type { SignatureRefusal } from './signature-refusals.js';
export type { SigV4Signer, SignableRequest } from './aws-sigv4.js';
