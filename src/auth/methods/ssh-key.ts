import { createHash } from 'node:crypto';
import type { ParsedKey } from 'ssh2';
import { z } from 'zod';
import { keys } from '../../config/index.js';
import { ConfigurationError } from '../../errors/index.js';
import { unescapeNewlines } from '../../network/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import type { Credential } from '../auth-method.js';
import { defineAuthMethod } from '../auth-method.js';

/**
 * An SSH private key (OpenSSH, PEM or PuTTY format, optionally encrypted) that an SSH source such
 * as sftp signs its login with. The key is read and decrypted here, by ssh2's own parser, so a key
 * that does not parse or a wrong passphrase fails with exit 2 before any connection. ssh2 is
 * imported inside `create`: a configuration that does not name this method never loads it.
 *
 * `private_key` and `private_key_passphrase` are declared secret in the key catalogue (registered,
 * PEM body lines included, the moment the configuration is read); the unescaped PEM and the
 * decrypted key ssh2 derives from it are registered here too, before anything can fail.
 */

export interface SshKeyCredential extends Credential {
  readonly method: 'ssh_key';
  /** "ssh-ed25519" */
  readonly keyType: string;
  /** SHA256 fingerprint of the public half, as `ssh-keygen -l` prints it: public, safe to show. */
  readonly publicKeyFingerprint: string;
  /** The parsed, decrypted key for ssh2; an object, so it cannot end up in a message by accident. */
  privateKey(): ParsedKey;
}

export default defineAuthMethod({
  name: 'ssh_key',
  summary: 'an SSH private key the source checks against its authorized keys (sftp)',
  keys: z.object({ private_key: keys.text(), private_key_passphrase: keys.optionalText() }),
  async create({ private_key, private_key_passphrase }, { raw, secrets }): Promise<SshKeyCredential> {
    const { parsed, fingerprint } = await readSshPrivateKey(private_key, private_key_passphrase, {
      keyKey: 'private_key',
      passphraseKey: 'private_key_passphrase',
      secrets,
    });
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
      async authorize() {
        // Sources that take HTTP requests do not accept this method; this guards a custom source that would.
        throw new ConfigurationError("auth_method 'ssh_key' is for SSH sources such as sftp; it cannot authorize an HTTP request", {
          code: 'ssh_key_not_for_http',
          key: 'auth_method',
          hint: "for an HTTP API, choose a method such as bearer, basic or oauth2_client_credentials in 'auth_method'",
        });
      },
    };
  },
});

export interface SshKeyNames {
  /** The configuration key that holds the key, named in every error. */
  keyKey: string;
  /** The configuration key of its passphrase. */
  passphraseKey: string;
  secrets: Pick<SecretRegistry, 'register'>;
}

/**
 * Parses and decrypts an SSH private key with ssh2's parser (the one that will sign with it), or
 * throws a ConfigurationError naming the key or its passphrase. ssh2's reasons are not quoted: some
 * are built from bytes of the key file.
 */
export async function readSshPrivateKey(
  text: string,
  passphrase: string | undefined,
  names: SshKeyNames,
): Promise<{ parsed: ParsedKey; fingerprint: string }> {
  const { keyKey, passphraseKey, secrets } = names;
  const material = unescapeNewlines(text).trim();
  secrets.register(keyKey, material);
  const { utils } = (await import('ssh2')).default;
  const result = utils.parseKey(material, passphrase) as ParsedKey | ParsedKey[] | Error;
  // OpenSSH's format can hold several keys; ssh2 signs with the first, so do we.
  const parsed = Array.isArray(result) ? result[0] : result;
  if (parsed === undefined || parsed instanceof Error) throw unreadableKey(parsed, material, passphrase, names);
  const privatePem = parsed.getPrivatePEM();
  if (!privatePem) {
    throw new ConfigurationError(`invalid configuration: '${keyKey}' holds a public key; it needs the private key`, {
      code: 'ssh_key_not_private',
      key: keyKey,
      hint: `put the private key file's content (e.g. ~/.ssh/id_ed25519, not the .pub) in '${keyKey}'`,
    });
  }
  // The decrypted form is a new text of the same secret.
  secrets.register(keyKey, privatePem);
  return { parsed, fingerprint: sshFingerprint(parsed.getPublicSSH()) };
}

/** "SHA256:" and the unpadded base64 of the key blob's SHA-256: what `ssh-keygen -l` prints. */
export function sshFingerprint(publicKeyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(publicKeyBlob).digest('base64').replace(/=+$/, '')}`;
}

function unreadableKey(error: Error | undefined, material: string, passphrase: string | undefined, names: SshKeyNames): ConfigurationError {
  const { keyKey, passphraseKey } = names;
  const reason = error?.message ?? '';
  if (/no passphrase given/i.test(reason)) {
    return new ConfigurationError(`invalid configuration: the SSH private key in '${keyKey}' is encrypted and '${passphraseKey}' is missing`, {
      code: 'ssh_key_passphrase_missing',
      key: passphraseKey,
      hint: `set '${passphraseKey}' to the key's passphrase`,
    });
  }
  if (passphrase !== undefined && /passphrase|bad decrypt|integrity check|decrypt/i.test(reason)) {
    return new ConfigurationError(`invalid configuration: '${passphraseKey}' does not decrypt the SSH private key in '${keyKey}'`, {
      code: 'ssh_key_passphrase_wrong',
      key: passphraseKey,
      hint: `check '${passphraseKey}' (\`ssh-keygen -y -f KEYFILE\` asks for it and shows the public key when it is right)`,
    });
  }
  const what = /^-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(material) || /^PuTTY-User-Key-File/.test(material) ? 'cannot be read (damaged or truncated, or an unsupported key type or cipher)' : 'is not an SSH private key';
  return new ConfigurationError(`invalid configuration: the SSH private key in '${keyKey}' ${what}`, {
    code: 'ssh_key_unreadable',
    key: keyKey,
    hint: `put a whole private key file in '${keyKey}' ("-----BEGIN OPENSSH PRIVATE KEY-----" … "-----END OPENSSH PRIVATE KEY-----"; newlines as \\n in JSON)`,
  });
}
