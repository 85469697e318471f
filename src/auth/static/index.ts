// The static family's door: credentials whose secret does not change during a run.
export { staticHeaderCredential } from './static-header-credential.js';
