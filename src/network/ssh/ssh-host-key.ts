import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ConfigurationError, SourceIdentityError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';

/**
 * Whether an SSH server is the one meant: its host key's SHA256 fingerprint is compared with the
 * configured one inside ssh2's `hostVerifier`, before any credential is used. Checking is the
 * default; a configuration without a fingerprint fails (exit 2) with the command that prints one,
 * unless it turns checking off by name, which is logged as a warning on every run. Both at once is
 * refused: two switches for one decision would disagree sooner or later.
 *
 * One rule for every SSH peer (the sftp source's server, the SSH tunnel's bastion), so they cannot
 * drift apart; the caller names its keys and what its messages call the peer.
 */

export interface HostKeyRule {
  /** What messages call the peer: "server", "bastion". */
  peer: string;
  /** Keys the errors and hints name. */
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

export interface HostKeyPeer {
  host: string;
  port: number;
  /** "sftp://alice@files.example.com:22": the one the credential goes to. */
  target: string;
  /** What someone posing as the peer gains, for the opt-out's warning: "receive the credential". */
  risk: string;
}

/** `SHA256:` and 43 characters of unpadded base64, as `ssh-keygen -l` prints a fingerprint. */
const SHA256_FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

/**
 * The zod type of a fingerprint key: one fingerprint, or several separated by commas (a server's old
 * and new key while it rotates). Absent or empty gives an empty list: whether that is allowed is the
 * rule's decision (`checkHostKeyRule`).
 */
export function fingerprintList() {
  return z
    .string()
    .optional()
    .transform((v, ctx): string[] => {
      if (v === undefined || v.trim() === '') return [];
      const items = v.split(',').map((item) => item.trim().replace(/=+$/, ''));
      for (const item of items) {
        if (SHA256_FINGERPRINT.test(item)) continue;
        const md5 = /^(MD5:)?([0-9a-f]{2}:){15}[0-9a-f]{2}$/i.test(item);
        ctx.issues.push({
          code: 'custom',
          input: v,
          message: md5
            ? 'is an MD5 fingerprint; give the SHA256 one (`ssh-keygen -l -E sha256 -f KEY.pub` prints it)'
            : 'must be a host key fingerprint such as SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s (as `ssh-keygen -l` prints it)',
        });
        return z.NEVER;
      }
      return items;
    });
}

/** Refuses a missing fingerprint and contradictory keys; logs the opt-out. No network. */
export function checkHostKeyRule(rule: HostKeyRule, where: HostKeyPeer, log: Pick<Logger, 'warning'>): void {
  const { peer, fingerprintKey, skipKey } = rule;
  if (rule.skip && rule.expected.length > 0) {
    throw new ConfigurationError(
      `invalid configuration: '${fingerprintKey}' and '${skipKey}' are both set; the ${peer}'s host key is either checked or not`,
      {
        code: 'ssh_host_key_rule_conflict',
        key: skipKey,
        hint: `remove '${skipKey}' to check the ${peer}'s host key against '${fingerprintKey}'`,
      },
    );
  }
  if (rule.skip) {
    log.warning(
      `SSH host key checking is OFF for ${where.target} (${skipKey}=true): anyone on the path can pose as the ${peer} and ${where.risk}`,
    );
    return;
  }
  if (rule.expected.length === 0) {
    throw new ConfigurationError(
      `invalid configuration: '${fingerprintKey}' is missing; the ${peer}'s host key must be known before the credential is sent to ${where.target}`,
      {
        code: 'ssh_host_key_fingerprint_missing',
        key: fingerprintKey,
        hint: `run \`ssh-keyscan -p ${where.port} ${where.host} | ssh-keygen -lf -\`, confirm the SHA256 fingerprint with the ${peer}'s administrator, and set '${fingerprintKey}' to it`,
      },
    );
  }
}

/** One connection's check: a new one per connection, so `refused()` speaks of that connection. */
export function hostKeyCheck(rule: HostKeyRule, onSkippedKey?: (key: PresentedHostKey) => void): HostKeyCheck {
  let presented: PresentedHostKey | undefined;
  let refused = false;
  return {
    verify(key: Buffer): boolean {
      presented = { type: keyType(key), fingerprint: sshFingerprint(key) };
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

/** The error for a refused host key: it shows what the peer presented, so the user can verify it. */
export function hostKeyMismatch(
  rule: HostKeyRule,
  presented: PresentedHostKey | undefined,
  target: string,
  cause?: unknown,
): SourceIdentityError {
  const { peer, fingerprintKey } = rule;
  const shown = presented ? `${presented.type} ${presented.fingerprint}` : 'an unknown key';
  return new SourceIdentityError(
    `${target} failed: the ${peer}'s host key (${shown}) does not match '${fingerprintKey}' (${rule.expected.join(', ')})`,
    {
      code: 'ssh_host_key_mismatch',
      key: fingerprintKey,
      hint: `the ${peer} may have a new key, or someone may be posing as it: ask its administrator whether ${presented?.fingerprint ?? 'its fingerprint'} is its key before setting '${fingerprintKey}' to it`,
      ...(cause === undefined ? {} : { cause }),
    },
  );
}

/** "SHA256:" and the unpadded base64 of a public key blob's SHA-256: what `ssh-keygen -l` prints. */
export function sshFingerprint(publicKeyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(publicKeyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The blob starts with its type as an SSH string (uint32 length, bytes): "ssh-ed25519". */
function keyType(key: Buffer): string {
  if (key.length < 4) return 'unknown';
  const length = key.readUInt32BE(0);
  return length > 0 && length < 64 && key.length >= 4 + length ? key.toString('latin1', 4, 4 + length) : 'unknown';
}
