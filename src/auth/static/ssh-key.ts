import { z } from 'zod';
import { keys } from '../../config/index.js';
import { readSshPrivateKey, sshFingerprint } from '../../network/index.js';
import { defineAuthMethod, type CredentialWith } from '../auth-method.js';

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

export default defineAuthMethod({
  name: 'ssh_key',
  summary: 'an SSH private key the source checks against its authorized keys (sftp)',
  keys: z.object({ private_key: keys.text(), private_key_passphrase: keys.optionalText() }),
  async create({ private_key, private_key_passphrase }, { source, secrets }): Promise<CredentialWith<'sshKey'>> {
    const parsed = await readSshPrivateKey(private_key, private_key_passphrase, {
      keyKey: 'private_key',
      passphraseKey: 'private_key_passphrase',
      secrets,
    });
    const fingerprint = sshFingerprint(parsed.getPublicSSH());
    const user = source.username?.trim();
    return {
      method: 'ssh_key',
      description: `ssh key auth${user ? ` as '${user}'` : ''} (${parsed.type} ${fingerprint})`,
      rejectedKey: 'private_key',
      // The key signs a challenge; it never crosses the network.
      sendsSecret: false,
      sshKey: { keyType: parsed.type, publicKeyFingerprint: fingerprint, read: () => parsed },
    };
  },
});
