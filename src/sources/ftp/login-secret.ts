import type { CredentialFor } from '../source-definition.js';

/**
 * What the ftp source logs in with: the credential's password, read at each login. The one place
 * the source touches the credential. Anonymous FTP is the same login with `username` `anonymous`
 * and, by the protocol's custom, an e-mail address as the password.
 */
export interface FtpLoginSecret {
  password(): string;
}

export function loginSecretOf(credential: CredentialFor<'password'>): FtpLoginSecret {
  return { password: () => credential.password.read() };
}
