import { readFile } from 'node:fs/promises';
import { ConfigurationError } from '../../errors/index.js';
import type { SecretRegistry } from '../../secrets/index.js';

/**
 * A token the platform writes to a file and rewrites before it expires: a Kubernetes projected
 * service account token, a CI runner's OIDC token. Read again at each use, since the platform
 * rotates it, and registered as a secret the moment it is read.
 */
export interface TokenFile {
  /** The path, as configured. */
  file: string;
  /** The configuration key that names the file, for errors. */
  key: string;
  /** How messages name the setting, when the path is inside the key's value (default `'<key>'`). */
  setting?: string;
  /** What the token is, for messages: "web identity token", "client assertion". */
  noun: string;
  /** The token's name: its label in redacted text, and error codes `<name>_unreadable`, `<name>_empty`. */
  name: 'client_assertion' | 'subject_token' | 'web_identity_token';
  /** Where the file usually comes from, for the hint when it cannot be read. */
  whereFrom: string;
  /** The credential's description, starting each message. */
  description: string;
  secrets: SecretRegistry;
}

/** A function that reads the token now: exit 2 naming the key when the file is missing, unreadable or empty. */
export function tokenFileReader(t: TokenFile): () => Promise<string> {
  const setting = t.setting ?? `'${t.key}'`;
  return async () => {
    let token: string;
    try {
      token = (await readFile(t.file, 'utf8')).trim();
    } catch (error) {
      throw new ConfigurationError(
        `${t.description}: cannot read the ${t.noun} from ${t.file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        {
          code: `${t.name}_unreadable`,
          key: t.key,
          hint: `set ${setting} to the file the platform writes the ${t.noun} to (${t.whereFrom})`,
        },
      );
    }
    if (!token)
      throw new ConfigurationError(`${t.description}: the ${t.noun} file ${t.file} is empty`, {
        code: `${t.name}_empty`,
        key: t.key,
        hint: `check that the platform has written the ${t.noun} to ${setting}`,
      });
    t.secrets.register(t.name, token);
    return token;
  };
}
