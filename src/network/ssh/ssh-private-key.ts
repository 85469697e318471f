import type { ParsedKey } from 'ssh2';
import { ConfigurationError, importOptionalPackage } from '../../errors/index.js';
import type { SecretRegistry } from '../../secrets/index.js';
import { unescapeNewlines } from '../tls/index.js';

/**
 * An SSH private key from configuration (OpenSSH, PEM or PuTTY format, optionally encrypted), read
 * and decrypted by ssh2's own parser, the one that will sign with it, so a key that does not parse
 * or a wrong passphrase fails with exit 2 before any connection. ssh2 is imported here, when a key
 * is read: a configuration without one never loads it.
 *
 * The unescaped PEM and the decrypted key ssh2 derives from it are registered as secrets under the
 * key's name before anything can fail, so neither can leak through an error that follows.
 */

/**
 * A private key as ssh2 parses it, in the words of our own declarations: the members we use. A
 * TypeScript user of the package then needs no @types/ssh2 (which would bring @types/node 18 beside
 * theirs). It is ssh2's ParsedKey, member for member, so either is the other.
 */
export interface SshPrivateKey {
  type: 'ssh-rsa' | 'ssh-dss' | 'ssh-ed25519' | 'ecdsa-sha2-nistp256' | 'ecdsa-sha2-nistp384' | 'ecdsa-sha2-nistp521';
  comment: string;
  sign(data: Buffer | string, algo?: string): Buffer;
  verify(data: Buffer | string, signature: Buffer, algo?: string): boolean;
  isPrivateKey(): boolean;
  getPrivatePEM(): string;
  getPublicPEM(): string;
  getPublicSSH(): Buffer;
  equals(key: Buffer | string | SshPrivateKey): boolean;
}

export interface SshPrivateKeyNames {
  /** The configuration key that holds the private key, named in every error. */
  keyKey: string;
  /** The configuration key of its passphrase; without one, an encrypted key is refused as such. */
  passphraseKey?: string | undefined;
  secrets: Pick<SecretRegistry, 'register'>;
}

/**
 * The parsed, decrypted key, or a ConfigurationError naming the key or its passphrase. ssh2's
 * reasons are not quoted: some are built from bytes of the key file.
 */
export async function readSshPrivateKey(
  text: string,
  passphrase: string | undefined,
  names: SshPrivateKeyNames,
): Promise<SshPrivateKey> {
  const { keyKey, secrets } = names;
  const material = unescapeNewlines(text).trim();
  secrets.register(keyKey, material);
  const { utils } = (await importOptionalPackage('ssh2', `the SSH key in '${keyKey}'`, () => import('ssh2'))).default;
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
  return parsed;
}

function unreadableKey(
  error: Error | undefined,
  material: string,
  passphrase: string | undefined,
  names: SshPrivateKeyNames,
): ConfigurationError {
  const { keyKey, passphraseKey } = names;
  const reason = error?.message ?? '';
  if (/no passphrase given/i.test(reason)) {
    if (passphraseKey === undefined) {
      return new ConfigurationError(
        `invalid configuration: the SSH private key in '${keyKey}' is encrypted; '${keyKey}' takes an unencrypted key`,
        {
          code: 'ssh_key_encrypted',
          key: keyKey,
          hint: `put an unencrypted key in '${keyKey}' (\`ssh-keygen -p -N '' -f KEYFILE\` removes a passphrase)`,
        },
      );
    }
    return new ConfigurationError(
      `invalid configuration: the SSH private key in '${keyKey}' is encrypted and '${passphraseKey}' is missing`,
      {
        code: 'ssh_key_passphrase_missing',
        key: passphraseKey,
        hint: `set '${passphraseKey}' to the key's passphrase`,
      },
    );
  }
  if (
    passphraseKey !== undefined &&
    passphrase !== undefined &&
    /passphrase|bad decrypt|integrity check|decrypt/i.test(reason)
  ) {
    return new ConfigurationError(
      `invalid configuration: '${passphraseKey}' does not decrypt the SSH private key in '${keyKey}'`,
      {
        code: 'ssh_key_passphrase_wrong',
        key: passphraseKey,
        hint: `check '${passphraseKey}' (\`ssh-keygen -y -f KEYFILE\` asks for it and shows the public key when it is right)`,
      },
    );
  }
  const what =
    /^-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(material) || /^PuTTY-User-Key-File/.test(material)
      ? 'cannot be read (damaged or truncated, or an unsupported key type or cipher)'
      : 'is not an SSH private key';
  return new ConfigurationError(`invalid configuration: the SSH private key in '${keyKey}' ${what}`, {
    code: 'ssh_key_unreadable',
    key: keyKey,
    hint: `put a whole private key file in '${keyKey}' ("-----BEGIN OPENSSH PRIVATE KEY-----" … "-----END OPENSSH PRIVATE KEY-----"; newlines as \\n in JSON)`,
  });
}
