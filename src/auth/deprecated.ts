import type { Credential, CredentialWith } from './auth-method.js';

/**
 * Names of the credential shapes before capabilities (issue 23), kept for library users. The
 * project's own code reads the capability members instead (`credential.password`, `.awsKeys`, …).
 */

/** @deprecated A credential with the `password` capability: `CredentialWith<'password'>`. */
export type PasswordCredential = CredentialWith<'password'>;
/** @deprecated A credential with the `sshKey` capability: `CredentialWith<'sshKey'>`. */
export type SshKeyCredential = CredentialWith<'sshKey'>;

/** @deprecated Test `credential.password !== undefined` instead. */
export function isPasswordCredential(credential: Credential): credential is PasswordCredential {
  return credential.password !== undefined;
}
