// The static family's door: credentials whose secret does not change during a run.
export { notForHttp } from './not-for-http.js';
export { isPasswordCredential } from './password-credential.js';
export type { PasswordCredential } from './password-credential.js';
export type { SshKeyCredential } from './ssh-key.js';
export { staticHeaderCredential } from './static-header-credential.js';
