import { z } from 'zod';
import { keys } from '../../config/index.js';
import { readSshPrivateKey, sshFingerprint, type SshPrivateKey } from '../../network/index.js';
import type { Credential } from '../auth-method.js';
import { defineAuthMethod } from '../auth-method.js';
import { notForHttp } from './not-for-http.js';

/**
 * An SSH private key (OpenSSH, PEM or PuTTY format, optionally encrypted) that an SSH source such
 * as sftp signs its login with. The key is read and decrypted in `create` (network's
 * `readSshPrivateKey`, which imports ssh2), so a key that does not parse or a wrong passphrase fails
 * with exit 2 before any connection, and a configuration that does not name this method never loads
 * ssh2.
 *
 * `private_key` and `private_key_passphrase` are declared secret in the key catalogue (registered,
 * PEM body lines included, the moment the configuration is read); the unescaped PEM and the
 * decrypted key ssh2 derives from it are registered when the key is read, before anything can fail.
 */

export interface SshKeyCredential extends Credential {
  readonly method: 'ssh_key';
  /** "ssh-ed25519" */
  readonly keyType: string;
  /** SHA256 fingerprint of the public half, as `ssh-keygen -l` prints it: public, safe to show. */
  readonly publicKeyFingerprint: string;
  /** The parsed, decrypted key for ssh2; an object, so it cannot end up in a message by accident. */
  privateKey(): SshPrivateKey;
}

export default defineAuthMethod({
  name: 'ssh_key',
  summary: 'an SSH private key the source checks against its authorized keys (sftp)',
  keys: z.object({ private_key: keys.text(), private_key_passphrase: keys.optionalText() }),
  async create({ private_key, private_key_passphrase }, { raw, secrets }): Promise<SshKeyCredential> {
    const parsed = await readSshPrivateKey(private_key, private_key_passphrase, {
      keyKey: 'private_key',
      passphraseKey: 'private_key_passphrase',
      secrets,
    });
    const fingerprint = sshFingerprint(parsed.getPublicSSH());
    const user = raw.username?.trim();
    return {
      method: 'ssh_key',
      description: `ssh key auth${user ? ` as '${user}'` : ''} (${parsed.type} ${fingerprint})`,
      rejectedKey: 'private_key',
      // The key signs a challenge; it never crosses the network.
      sendsSecret: false,
      keyType: parsed.type,
      publicKeyFingerprint: fingerprint,
      privateKey: () => parsed,
      authorize: notForHttp(
        'ssh_key',
        'SSH sources such as sftp',
        "for an HTTP API, choose a method such as bearer, basic or oauth2_client_credentials in 'auth_method'",
      ),
    };
  },
});
