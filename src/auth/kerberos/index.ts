// The kerberos auth method's door: the method (for the catalogue) and what a source asks of its credential.
export { default as kerberosMethod } from './kerberos-method.js';
export { isKerberosCredential } from './kerberos-credential.js';
export type { GssInitiator, GssTarget, KerberosCredential } from './kerberos-credential.js';
