import type { Credential } from '../auth-method.js';

/**
 * A password that the source checks itself, inside its own protocol (a database's SCRAM exchange),
 * rather than one put on an HTTP request. The source asks for it at the moment it authenticates;
 * the value lives in a closure, so it is in no property that `inspect` or `JSON.stringify` could show.
 */
export interface PasswordCredential extends Credential {
  readonly method: 'password';
  password(): string;
}

export function isPasswordCredential(credential: Credential): credential is PasswordCredential {
  return credential.method === 'password' && typeof (credential as Partial<PasswordCredential>).password === 'function';
}
