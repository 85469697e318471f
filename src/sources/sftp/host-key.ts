import { createHash } from 'node:crypto';
import { ConfigurationError, SourceIdentityError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';

/**
 * Whether the SSH server is the one meant: its host key's SHA256 fingerprint is compared with
 * `host_key_fingerprint` inside ssh2's `hostVerifier`, before any credential is sent. Checking is
 * the default; a configuration without a fingerprint fails (exit 2) with the command that prints
 * one, unless it says `ssh_skip_host_key_check=true`, which is logged as a warning on every run.
 * Both at once is refused: two switches for one decision would disagree sooner or later.
 */

export interface HostKeyRule {
  /** Keys the error and hint name (the sftp source's, or the SSH tunnel's). */
  fingerprintKey: string;
  skipKey: string;
  /** Accepted fingerprints; empty when checking is off. */
  expected: readonly string[];
  skip: boolean;
}

/** What the server presented, for messages: public by nature. */
export interface PresentedHostKey {
  type: string;
  fingerprint: string;
}

export interface HostKeyCheck {
  /** For ssh2's `hostVerifier` (the raw key blob): true to go on. */
  verify(key: Buffer): boolean;
  /** The key the server presented, once it has. */
  presented(): PresentedHostKey | undefined;
  /** True once a presented key was refused: the failure that follows is about identity. */
  refused(): boolean;
}

/** Refuses a missing fingerprint and contradictory keys; logs the opt-out. No network. */
export function checkHostKeyRule(rule: HostKeyRule, where: { host: string; port: number; target: string }, log: Pick<Logger, 'warning'>): void {
  const { fingerprintKey, skipKey } = rule;
  if (rule.skip && rule.expected.length > 0) {
    throw new ConfigurationError(`invalid configuration: '${fingerprintKey}' and '${skipKey}' are both set; the host key is either checked or not`, {
      code: 'ssh_host_key_rule_conflict',
      key: skipKey,
      hint: `remove '${skipKey}' to check the host key against '${fingerprintKey}'`,
    });
  }
  if (rule.skip) {
    log.warning(`SSH host key checking is OFF for ${where.target} (${skipKey}=true): anyone on the path can pose as the server and receive the credential`);
    return;
  }
  if (rule.expected.length === 0) {
    throw new ConfigurationError(`invalid configuration: '${fingerprintKey}' is missing; the SSH server's host key must be known before the credential is sent to ${where.target}`, {
      code: 'ssh_host_key_fingerprint_missing',
      key: fingerprintKey,
      hint: `run \`ssh-keyscan -p ${where.port} ${where.host} | ssh-keygen -lf -\`, confirm the SHA256 fingerprint with the server's administrator, and set '${fingerprintKey}' to it`,
    });
  }
}

export function hostKeyCheck(rule: HostKeyRule, onSkippedKey?: (key: PresentedHostKey) => void): HostKeyCheck {
  let presented: PresentedHostKey | undefined;
  let refused = false;
  return {
    verify(key: Buffer): boolean {
      presented = { type: keyType(key), fingerprint: hostKeyFingerprint(key) };
      if (rule.skip) {
        onSkippedKey?.(presented);
        return true;
      }
      refused = !rule.expected.includes(presented.fingerprint);
      return !refused;
    },
    presented: () => presented,
    refused: () => refused,
  };
}

/** The error for a refused host key: it shows what the server presented, so the user can verify it. */
export function hostKeyMismatch(rule: HostKeyRule, presented: PresentedHostKey | undefined, target: string, cause?: unknown): SourceIdentityError {
  const shown = presented ? `${presented.type} ${presented.fingerprint}` : 'an unknown key';
  const expected = rule.expected.join(', ');
  return new SourceIdentityError(`${target} failed: the server's host key (${shown}) does not match '${rule.fingerprintKey}' (${expected})`, {
    code: 'ssh_host_key_mismatch',
    key: rule.fingerprintKey,
    hint: `the server may have a new key, or someone may be posing as it: ask its administrator whether ${presented?.fingerprint ?? 'its fingerprint'} is its key before setting '${rule.fingerprintKey}' to it`,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** "SHA256:…" of the key blob the server sent, as `ssh-keygen -l` prints it. */
export function hostKeyFingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/** The blob starts with its type as an SSH string (uint32 length, bytes): "ssh-ed25519". */
function keyType(key: Buffer): string {
  if (key.length < 4) return 'unknown';
  const length = key.readUInt32BE(0);
  return length > 0 && length < 64 && key.length >= 4 + length ? key.toString('latin1', 4, 4 + length) : 'unknown';
}
