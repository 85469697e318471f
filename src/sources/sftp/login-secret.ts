import type { Credential, SshKeyCredential } from '../../auth/index.js';
import { isPasswordCredential } from '../../auth/index.js';
import { ConfigurationError } from '../../errors/index.js';
import type { LoginTerms, SshLoginSecret } from '../../network/index.js';
import type { SftpEndpoint } from './sftp-settings.js';

/**
 * What the sftp source logs in with (network/ssh-login.ts), from its auth method: the `password`
 * method's password, read at each login, or the `ssh_key` method's parsed key. Checked when the
 * source connects, before any connection.
 */
export function loginSecretOf(credential: Credential): SshLoginSecret {
  if (isPasswordCredential(credential)) return { kind: 'password', password: () => credential.password() };
  const keyCredential = credential as Partial<SshKeyCredential>;
  if (credential.method === 'ssh_key' && typeof keyCredential.privateKey === 'function') {
    return { kind: 'key', key: keyCredential.privateKey.bind(credential) };
  }
  throw new ConfigurationError(`the sftp source cannot log in with auth_method '${credential.method}'`, {
    code: 'method_not_accepted',
    key: 'auth_method',
    hint: "set 'auth_method' to password or ssh_key",
  });
}

/** A refused login in the sftp source's keys: `auth_method` chooses the method, `username` the account. */
export function sftpLoginTerms(endpoint: SftpEndpoint, credential: Credential): LoginTerms {
  return {
    kind: credential.method === 'password' ? 'password' : 'key',
    peer: 'server',
    user: endpoint.username,
    userKey: 'username',
    codePrefix: 'ssh',
    secretKey: credential.method === 'password' ? 'password' : credential.rejectedKey,
    methodKey: 'auth_method',
    useOther: (other) => `set 'auth_method' to ${other === 'key' ? 'ssh_key' : 'password'}`,
  };
}
