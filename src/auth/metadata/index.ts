// The metadata family's door: what gcp/ reuses of the EC2 instance session and the metadata address rule.
export { instanceMetadataSession } from './instance-metadata-session.js';
export { staysLocalOrEncrypted } from './metadata-endpoint.js';
