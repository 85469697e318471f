import { isPasswordCredential, type Credential } from '../../auth/index.js';
import { ConfigurationError } from '../../errors/index.js';

/**
 * What the ftp source logs in with: the `password` method's password, read at each login. The one
 * place the source touches the credential. Anonymous FTP is the same login with `username`
 * `anonymous` and, by the protocol's custom, an e-mail address as the password.
 */
export interface FtpLoginSecret {
  password(): string;
}

export function loginSecretOf(credential: Credential): FtpLoginSecret {
  if (isPasswordCredential(credential)) return { password: () => credential.password() };
  throw new ConfigurationError(`the ftp source cannot log in with auth_method '${credential.method}'`, {
    code: 'method_not_accepted',
    key: 'auth_method',
    hint: "set 'auth_method' to password (for anonymous FTP: username anonymous, any password)",
  });
}
