import type { Credential, CredentialWith } from '../../auth/index.js';
import type { LoginTerms, SshLoginSecret } from '../../network/index.js';
import type { SftpEndpoint } from './sftp-settings.js';

/**
 * What the sftp source logs in with (network/ssh-login.ts), from its credential's capability: a
 * password, read at each login, or an SSH key, parsed already.
 */
export function loginSecretOf(credential: CredentialWith<'password'> | CredentialWith<'sshKey'>): SshLoginSecret {
  if (credential.password) return { kind: 'password', password: credential.password.read };
  return { kind: 'key', key: credential.sshKey!.read };
}

/** A refused login in the sftp source's keys: `auth_method` chooses the method, `username` the account. */
export function sftpLoginTerms(endpoint: SftpEndpoint, credential: Credential): LoginTerms {
  return {
    kind: credential.password ? 'password' : 'key',
    peer: 'server',
    user: endpoint.username,
    userKey: 'username',
    codePrefix: 'ssh',
    secretKey: credential.password ? 'password' : credential.rejectedKey,
    methodKey: 'auth_method',
    useOther: (other) => `set 'auth_method' to ${other === 'key' ? 'ssh_key' : 'password'}`,
  };
}
